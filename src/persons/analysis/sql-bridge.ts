import type { SQL } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import type { Params } from "./sql";

const dialect = new SQLiteSyncDialect();

/**
 * Inlines a drizzle SQL fragment (e.g. from the shared property-filter matcher) into an analysis
 * statement: each positional `?` outside string literals becomes one of the statement's numbered
 * `?N` parameters, so fragments compose with the rest of the hand-built SQL.
 */
export function inlineDrizzle(fragment: SQL, params: Params): string {
  const { sql, params: values } = dialect.sqlToQuery(fragment);
  let out = "";
  let next = 0;
  let quote: string | null = null;
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null; // a doubled quote re-opens on the next character, which is fine
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === "?") {
      out += params.bind(values[next++] as string | number | null);
      continue;
    }
    out += ch;
  }
  if (next !== values.length) throw new Error("parameter count mismatch while inlining SQL");
  return out;
}
