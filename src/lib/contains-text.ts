import { type SQL, sql, type SQLWrapper } from "drizzle-orm";

/**
 * `column` contains `term`, ignoring ASCII case (what `LIKE '%term%'` means in SQLite), for search
 * boxes. Written with `instr` rather than LIKE because D1 refuses LIKE and GLOB patterns over 50
 * bytes, which would make any longer search text fail; `instr` takes text of any length, with no
 * characters to escape. NULL (no such property) never matches. `term` is bound when it is text, or
 * an SQL expression (e.g. a value of json_each).
 */
export function containsText(column: SQLWrapper, term: string | SQLWrapper): SQL {
  return sql`(instr(lower(${column}), lower(${term})) > 0)`;
}
