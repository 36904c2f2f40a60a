import { is, SQL } from "drizzle-orm";
import { DrizzleQueryError } from "drizzle-orm/errors";
import type { Db } from "../db/client";
import { renderSql } from "./sql";

/** D1's own error behind a failed query: drizzle's query builder wraps it (as the cause). */
export const d1ErrorOf = (err: unknown): unknown => (err instanceof DrizzleQueryError && err.cause ? err.cause : err);

/** Whether D1 refused a statement for `reason`: its error's message (or that error's cause) matches. */
export function refusedByD1(err: unknown, reason: RegExp): boolean {
  const error = d1ErrorOf(err);
  if (!(error instanceof Error)) return false;
  return reason.test(error.message) || (error.cause instanceof Error && reason.test(error.cause.message));
}

/** A statement of an atomic group: a drizzle query builder, or hand-written SQL (drizzle's `sql` template). */
export type BatchItem = SQL | { toSQL(): { sql: string; params: unknown[] } };

/**
 * Runs statements in one D1 batch, one transaction: all apply or none. The one way to batch here:
 * drizzle's own `db.batch` cannot bind the parameters of hand-written `sql` statements
 * (drizzle-orm 0.45), so each item becomes a D1 statement and D1's results come back as they are,
 * in statement order (`.results` holds the rows of a SELECT or of a `.returning()`).
 * An empty list runs nothing.
 */
export async function runBatch<T = Record<string, unknown>>(db: Db, statements: BatchItem[]): Promise<D1Result<T>[]> {
  if (!statements.length) return [];
  return db.$client.batch<T>(
    statements.map((s) => {
      const { sql, params } = is(s, SQL) ? renderSql(s) : s.toSQL();
      return db.$client.prepare(sql).bind(...params);
    }),
  );
}

/**
 * Rows travel to D1 as one JSON array per statement (read back with `json_each`), so a statement
 * binds two or three parameters whatever the row count; arrays are cut at this many bytes to stay
 * well under D1's 2 MB limit for one value.
 */
const MAX_CHUNK_BYTES = 900_000;

export function chunkJson(rows: unknown[]): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let size = 2;
  for (const row of rows) {
    const text = JSON.stringify(row);
    if (current.length && size + text.length + 1 > MAX_CHUNK_BYTES) {
      chunks.push(`[${current.join(",")}]`);
      current = [];
      size = 2;
    }
    current.push(text);
    size += text.length + 1;
  }
  if (current.length) chunks.push(`[${current.join(",")}]`);
  return chunks;
}

/** D1 binds at most 100 parameters to a statement: a list bound one parameter per item goes in runs this long. */
export const BOUND_LIST_LENGTH = 90;

/** `items` in consecutive runs of at most `size` (the last may be shorter). */
export function chunked<T>(items: T[], size = BOUND_LIST_LENGTH): T[][] {
  const runs: T[][] = [];
  for (let i = 0; i < items.length; i += size) runs.push(items.slice(i, i + size));
  return runs;
}

/** What a chunked loop did: rows touched, statements run, and whether it stopped at its budget with rows left. */
export interface ChunkedRun {
  changes: number;
  runs: number;
  more: boolean;
}

/**
 * Repeats a statement that touches at most `chunk` rows per run (one D1 statement may run for at
 * most 30 s) until a run touches fewer, which means nothing is left, or `maxRuns` statements ran.
 * `run` executes one statement and says how many rows it touched. Each run moves its rows out of
 * the statement's match (deletes them, or rewrites them to no longer match), so the loop ends.
 */
export async function untilDone(run: () => Promise<number>, chunk: number, maxRuns: number): Promise<ChunkedRun> {
  let changes = 0;
  for (let runs = 0; runs < maxRuns;) {
    const n = await run();
    changes += n;
    runs++;
    if (n < chunk) return { changes, runs, more: false };
  }
  // Out of budget: rows may be left (unknown without another run), so the caller is told there may be more.
  return { changes, runs: maxRuns, more: true };
}
