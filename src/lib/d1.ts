import type { SQL } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client";

const dialect = new SQLiteSyncDialect();

/** A drizzle `sql` fragment or query builder as a D1 prepared statement, for `d1.batch`. */
export function statement(db: Db, query: SQL | { toSQL(): { sql: string; params: unknown[] } }): D1PreparedStatement {
  const { sql, params } = "toSQL" in query ? query.toSQL() : dialect.sqlToQuery(query);
  return db.$client.prepare(sql).bind(...params);
}

/** Runs statements in one D1 batch (one transaction: all apply or none). */
export async function runBatch(db: Db, statements: (SQL | { toSQL(): { sql: string; params: unknown[] } })[]) {
  if (statements.length) await db.$client.batch(statements.map((s) => statement(db, s)));
}

/** D1 binds at most 100 parameters to a statement: a list bound one parameter per item goes in runs this long. */
export const BOUND_LIST_LENGTH = 90;

/** `items` in consecutive runs of at most `size` (the last may be shorter). */
export function chunked<T>(items: T[], size = BOUND_LIST_LENGTH): T[][] {
  const runs: T[][] = [];
  for (let i = 0; i < items.length; i += size) runs.push(items.slice(i, i + size));
  return runs;
}
