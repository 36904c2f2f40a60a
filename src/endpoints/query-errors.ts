import { ApiError, validationError } from "../lib/errors";

/**
 * What a failed D1 query means for the caller. SQLite's own errors (SQLITE_ERROR, SQLITE_MISMATCH,
 * SQLITE_TOOBIG, SQLITE_RANGE) are deterministic outcomes of the query over the data: the caller's
 * 400, retrying will not help. Everything else (D1 overloaded, reset, timed out, network, storage
 * full, a worker-side exception) is ours: a 5xx the client may retry, detail only in our logs.
 */
export type QueryFailure = { kind: "query"; message: string } | { kind: "server"; retryable: boolean; detail: string };

const QUERY_CODES = /:\s*SQLITE_(ERROR|MISMATCH|TOOBIG|RANGE)\b(\s*\(extended: \w+\))?\s*$/;
/** D1's own transient conditions (overload, resets, timeouts, lost connections), worth a retry. */
const TRANSIENT =
  /overloaded|timed? ?out|timeout|network connection lost|reset|transient|temporarily|too many requests|SQLITE_(BUSY|LOCKED|INTERRUPT)|interrupted|disconnected/i;

/**
 * Error texts whose identifiers come from the compiled SQL (aliases, catalog sub-selects, SQLite
 * function names), not from the HogQL the caller wrote: said in the caller's terms instead.
 */
const REWORDED: [RegExp, string][] = [
  [/^no such column\b/i, "the query refers to a column that does not exist where it is used"],
  [/^no such table\b/i, "the query refers to a table that does not exist"],
  [/^ambiguous column name\b/i, "a column name is ambiguous; qualify it with its table alias"],
  [/^no such function\b/i, "the query calls a function the database does not provide"],
  [/^wrong number of arguments to function\b/i, "a function is called with the wrong number of arguments"],
  [
    /^misuse of (aggregate|window) function\b/i,
    "an aggregate is used where it is not allowed (in WHERE, or inside another aggregate)",
  ],
  [/syntax error|^near\b|incomplete input|unrecognized token/i, "the query could not be translated into valid SQL"],
  [/too many SQL variables/i, "the query uses too many values"],
];

export function classifyQueryError(error: unknown): QueryFailure {
  const raw = (error instanceof Error ? error.message : String(error))
    .replace(/^(D1_ERROR|D1_EXEC_ERROR|Error):\s*/i, "")
    .trim();
  const sqlite = QUERY_CODES.exec(raw);
  if (!sqlite || TRANSIENT.test(raw)) return { kind: "server", retryable: TRANSIENT.test(raw), detail: raw };
  const text = raw
    .slice(0, sqlite.index)
    .replace(/\s+at offset \d+/gi, "")
    .trim();
  const reworded = REWORDED.find(([pattern]) => pattern.test(text));
  if (reworded) return { kind: "query", message: reworded[1] };
  // Data errors (malformed JSON, integer overflow, string or blob too big, ...) are safe to show,
  // unless they carry an internal name (double-underscore columns, the catalog's table aliases).
  if (/__\w|\b(pdi|person_distinct_ids|project_id)\b/i.test(text))
    return { kind: "query", message: "the query failed in the database" };
  return { kind: "query", message: text || "the query failed in the database" };
}

/**
 * A call to the endpoint's Durable Object that threw: never the caller's fault. Workers marks
 * transient failures (overload, a reset instance, a lost connection) with `retryable` or `overloaded`.
 */
export function classifyStubError(error: unknown): QueryFailure {
  const flags = (error ?? {}) as { retryable?: unknown; overloaded?: unknown };
  const detail = error instanceof Error ? error.message : String(error);
  return {
    kind: "server",
    retryable: flags.retryable === true || flags.overloaded === true || TRANSIENT.test(detail),
    detail,
  };
}

/** The envelope for a failure: the cleaned message as a 400, or a generic 5xx (its detail logged). */
export function queryFailureError(failure: QueryFailure, context: string): ApiError {
  if (failure.kind === "query")
    return validationError(`Query execution failed: ${failure.message}`, "query", "query_execution_failed");
  console.error(`${context}: query failed on the database side`, failure.detail);
  return failure.retryable
    ? new ApiError(
        503,
        "server_error",
        "service_unavailable",
        "The database is temporarily unavailable; retry the request.",
      )
    : new ApiError(500, "server_error", "error", "A server error occurred.");
}
