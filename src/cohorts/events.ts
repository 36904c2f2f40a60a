import type { Db } from "../db/client";
import type { Env } from "../env";
import { refreshFlagDefinitions } from "../flags/definitions-cache";

/**
 * Called after every committed cohort write (create, update, delete, membership change), before
 * the response is sent: flags cache local-evaluation definitions, which embed cohorts, in KV.
 */
export async function onCohortsChanged(env: Env, db: Db, projectId: number): Promise<void> {
  await refreshFlagDefinitions(env, db, projectId);
}
