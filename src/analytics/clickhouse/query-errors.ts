import { ClickHouseError } from "@clickhouse/client-web";
import { HogQLError } from "../../hogql/errors";
import { misconfiguration, type QueryFailure, TRANSIENT } from "../errors";

/**
 * ClickHouse's error types (system.errors) that are the query's own doing over the data, each said
 * in the caller's terms: ClickHouse's messages quote the compiled SQL (the catalog's subqueries,
 * parameter names), which the caller never wrote and must not see.
 */
const QUERY_ERRORS: Record<string, string> = {
  UNKNOWN_IDENTIFIER: "the query refers to a column that does not exist where it is used",
  UNKNOWN_TABLE: "the query refers to a table that does not exist",
  AMBIGUOUS_IDENTIFIER: "a column name is ambiguous; qualify it with its table alias",
  AMBIGUOUS_COLUMN_NAME: "a column name is ambiguous; qualify it with its table alias",
  UNKNOWN_FUNCTION: "the query calls a function the database does not provide",
  NUMBER_OF_ARGUMENTS_DOESNT_MATCH: "a function is called with the wrong number of arguments",
  TOO_FEW_ARGUMENTS_FOR_FUNCTION: "a function is called with the wrong number of arguments",
  TOO_MANY_ARGUMENTS_FOR_FUNCTION: "a function is called with the wrong number of arguments",
  ILLEGAL_AGGREGATION: "an aggregate is used where it is not allowed (in WHERE, or inside another aggregate)",
  NOT_AN_AGGREGATE: "a selected column is neither aggregated nor in GROUP BY",
  ILLEGAL_TYPE_OF_ARGUMENT: "a function is called with a value of the wrong type",
  TYPE_MISMATCH: "values of different types are compared or combined",
  NO_COMMON_TYPE: "values of different types are compared or combined",
  CANNOT_CONVERT_TYPE: "a value cannot be converted to the type the query needs",
  CANNOT_PARSE_TEXT: "a value cannot be read as the type the query needs",
  CANNOT_PARSE_NUMBER: "a value cannot be read as a number",
  CANNOT_PARSE_DATE: "a value cannot be read as a date",
  CANNOT_PARSE_DATETIME: "a value cannot be read as a date and time",
  CANNOT_PARSE_INPUT_ASSERTION_FAILED: "a value cannot be read as the type the query needs",
  BAD_ARGUMENTS: "a function is called with an argument it does not accept",
  ARGUMENT_OUT_OF_BOUND: "a function argument is out of range",
  ILLEGAL_DIVISION: "the query divides an integer by zero",
  CANNOT_PARSE_REGEXP: "a regular expression is not valid",
  CANNOT_COMPILE_REGEXP: "a regular expression is not valid",
  SYNTAX_ERROR: "the query could not be translated into valid SQL",
  TOO_MANY_ROWS_OR_BYTES: "the result has more rows than a run may return; aggregate or filter further",
  TOO_MANY_ROWS: "the result has more rows than a run may return; aggregate or filter further",
  TOO_DEEP_RECURSION: "the query is nested too deeply",
  TOO_DEEP_SUBQUERIES: "the query is nested too deeply",
  TOO_BIG_AST: "the query is too large",
  TOO_LARGE_ARRAY_SIZE: "an array in the query grows too large",
  DECIMAL_OVERFLOW: "a number overflows its type",
  VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE: "a number overflows its type",
};

/** The server is busy, restarting or out of a resource for a moment: the same query may succeed later. */
const RETRYABLE_TYPES = new Set([
  "TIMEOUT_EXCEEDED",
  "MEMORY_LIMIT_EXCEEDED",
  "TOO_MANY_SIMULTANEOUS_QUERIES",
  "QUERY_WAS_CANCELLED",
  "ABORTED",
  "NETWORK_ERROR",
  "SOCKET_TIMEOUT",
  "TABLE_IS_READ_ONLY",
  "ALL_CONNECTION_TRIES_FAILED",
]);

/** fetch's and the client's words for a server that did not answer. */
const UNREACHABLE = /fetch failed|network|connect|ECONN|socket|EAI_AGAIN|Timeout error|502|503|504/i;

/**
 * What a failed HogQL run on ClickHouse means for the caller: the query's own errors (by the
 * error type the server names) are a 400 with a message of our own; a busy, unreachable or
 * timed-out server is retryable; anything else (authentication, a missing table, a bug of ours)
 * is a 500, its detail only in the logs.
 */
export function classifyClickHouseQueryError(error: unknown): QueryFailure {
  const detail = error instanceof Error ? error.message : String(error);
  // A variable's value that its parameter type cannot take (clickhouse/variables.ts), named in our words.
  if (error instanceof HogQLError) return { kind: "query", message: error.message };
  const misconfigured = misconfiguration(error);
  if (misconfigured) return misconfigured;
  if (error instanceof ClickHouseError && error.type) {
    const message = QUERY_ERRORS[error.type];
    if (message) return { kind: "query", message };
    return { kind: "server", retryable: RETRYABLE_TYPES.has(error.type), detail: `${error.type}: ${detail}` };
  }
  // No ClickHouse error type: the request itself failed (refused, reset, timed out, a proxy's 5xx) or we did.
  return { kind: "server", retryable: TRANSIENT.test(detail) || UNREACHABLE.test(detail), detail };
}
