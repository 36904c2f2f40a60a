import type { Db } from "../db/client";
import type { Env } from "../env";

/**
 * Called after every committed cohort write (create, update, delete, membership change), before
 * the response is sent. Flags cache local-evaluation definitions (which embed cohorts) in KV per
 * project; when the flags area lands, the lead wires its refresh in here:
 *
 *   await refreshFlagDefinitions(env, db, projectId);   // from src/flags/definitions-cache.ts
 *
 * It intentionally does nothing until then: the flags half is being built in parallel and cannot be
 * imported yet. Every cohort write goes through src/cohorts/service.ts, which calls this hook.
 */
export async function onCohortsChanged(_env: Env, _db: Db, _projectId: number): Promise<void> {}
