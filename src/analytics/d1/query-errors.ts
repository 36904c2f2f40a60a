import { d1ErrorOf } from "../../lib/d1";
import { misconfiguration, type QueryFailure, TRANSIENT } from "../errors";

const QUERY_CODES = /:\s*SQLITE_(ERROR|MISMATCH|TOOBIG|RANGE)\b(\s*\(extended: \w+\))?\s*$/;

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

/**
 * What a failed HogQL run on D1 means for the caller. SQLite's own errors (SQLITE_ERROR,
 * SQLITE_MISMATCH, SQLITE_TOOBIG, SQLITE_RANGE) are deterministic outcomes of the query over the
 * data: the caller's 400 with a cleaned message. Everything else (D1 overloaded, reset, timed out,
 * network, storage full, a worker-side exception) is a server failure.
 */
export function classifyD1QueryError(failed: unknown): QueryFailure {
  const misconfigured = misconfiguration(failed);
  if (misconfigured) return misconfigured;
  const error = d1ErrorOf(failed);
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
