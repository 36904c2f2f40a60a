import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { endpoints } from "../db/schema";
import type { Env } from "../env";
import { validationError } from "../lib/errors";
import { materializerFor } from "./materialization";
import type { LastExecutionTimes } from "./response-schemas";
import { NAME_PATTERN } from "./schema";

const LOOKBACK_MS = 183 * 24 * 3600_000;

/** POST last_execution_times: PostHog's QueryStatusResponse envelope, results = [[name, iso], ...]. */
export async function lastExecutionTimes(
  env: Env,
  db: Db,
  projectId: number,
  names: string[],
): Promise<LastExecutionTimes> {
  for (const name of names)
    if (!NAME_PATTERN.test(name)) throw validationError(`Invalid endpoint name: ${name}`, "names");
  let results: [string, string][] | null = null;
  if (names.length) {
    // The names travel as one JSON parameter: 100 names plus the project id would exceed D1's 100 bound parameters.
    const named = sql`${endpoints.name} IN (SELECT value FROM json_each(${JSON.stringify(names)}))`;
    const rows = await db
      .select({ id: endpoints.id, name: endpoints.name })
      .from(endpoints)
      .where(and(eq(endpoints.projectId, projectId), named))
      .all();
    const since = Date.now() - LOOKBACK_MS;
    const found = await Promise.all(
      rows.map(async (r) => [r.name, (await materializerFor(env, r.id).lastExecution())?.at] as const),
    );
    results = found
      .filter((f): f is [string, string] => !!f[1] && Date.parse(f[1]) >= since)
      .sort(([a], [b]) => (a < b ? -1 : 1));
  }
  return {
    query_status: {
      id: "",
      query_async: true,
      team_id: projectId,
      insight_id: null,
      dashboard_id: null,
      error: false,
      complete: true,
      error_message: null,
      results,
      pickup_time: null,
      start_time: null,
      end_time: null,
      expiration_time: null,
      task_id: null,
      labels: null,
      // The spec types query_progress as an object (PostHog sends null); nothing is in progress once complete.
      query_progress: { active_cpu_time: 0, bytes_read: 0, estimated_rows_total: 0, rows_read: 0, time_elapsed: 0 },
    },
  };
}
