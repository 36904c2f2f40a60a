import type { D1Client } from "../../db/client";
import { refusedByD1 } from "../../lib/d1";
import type { Params } from "../../lib/sql";
import { queryTimeout, queryTooComplex } from "../errors";

export const D1_MAX_PARAMS = 100;

/** Maps D1 failures caused by the size of a query to a clear envelope; anything else stays a 500. */
export function mapD1Error(err: unknown): unknown {
  if (refusedByD1(err, /timed? ?out|timeout|exceeded.*(time|cpu)|interrupted/i)) return queryTimeout();
  if (
    refusedByD1(
      err,
      /too many SQL variables|too many terms|too complex|tree is too large|too many columns|string or blob too big|SQLITE_TOOBIG/i,
    )
  ) {
    return queryTooComplex("The analysis query is too large for the database. Use fewer steps, filters or values.");
  }
  return err;
}

/** The time of a project's first event (UTC ms), for `date_from=all`; null without events. */
export async function earliestEvent(d1: D1Client, projectId: number): Promise<number | null> {
  const row = await d1
    .prepare("SELECT min(timestamp) AS t FROM events WHERE project_id = ?1")
    .bind(projectId)
    .first<{ t: string | null }>();
  return row?.t ? Date.parse(row.t) : null;
}

/** Runs one analysis statement on D1, with size checks before and error mapping after. */
export async function runAll<T>(db: D1Client, sql: string, params: Params): Promise<T[]> {
  if (params.list.length > D1_MAX_PARAMS) {
    throw queryTooComplex(
      `The analysis query needs ${params.list.length} bound parameters; D1 allows ${D1_MAX_PARAMS}. Use fewer steps or filters.`,
    );
  }
  try {
    const result = await db
      .prepare(sql)
      .bind(...params.list)
      .all<T>();
    return result.results;
  } catch (err) {
    throw mapD1Error(err);
  }
}
