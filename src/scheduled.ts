import { analyticsStore } from "./analytics";
import { createDb } from "./db/client";
import type { Env } from "./env";
import { EVENT_RETENTION_DAYS, setting } from "./lib/config";
import { untilDone } from "./lib/d1";
import { allProjectIds } from "./projects/service";

const DAY_MS = 24 * 60 * 60 * 1000;
/** Rows per delete statement: a few hundred milliseconds of D1 work, far from its 30 s limit. */
export const RETENTION_CHUNK = 5_000;
/**
 * Statements per scheduled run (up to 500,000 events an hour). A backlog larger than that, e.g.
 * right after retention is first set, drains over the following runs instead of in one long one.
 */
export const RETENTION_CHUNKS_PER_RUN = 100;

export interface RetentionReport {
  cutoff: string | null;
  deleted: number;
  /** Whether the run stopped at its chunk budget with old events left. */
  more: boolean;
}

/**
 * Event retention (`EVENT_RETENTION_DAYS`): deletes each project's events older than the cutoff,
 * oldest first, in bounded chunks. Persons stay; so do materialized endpoint results until their
 * next refresh.
 */
export async function expireEvents(
  env: Env,
  now = Date.now(),
  chunk = RETENTION_CHUNK,
  budget = RETENTION_CHUNKS_PER_RUN,
): Promise<RetentionReport> {
  const days = setting(env, EVENT_RETENTION_DAYS);
  if (days === null) return { cutoff: null, deleted: 0, more: false };
  const cutoff = new Date(now - days * DAY_MS).toISOString();
  const db = createDb(env.DB);
  const store = analyticsStore(env, db);
  let deleted = 0;
  for (const projectId of await allProjectIds(db)) {
    const run = await untilDone(() => store.deleteEventsBefore(projectId, cutoff, chunk), chunk, budget);
    deleted += run.changes;
    budget -= run.runs;
    if (run.more) return { cutoff, deleted, more: true };
  }
  return { cutoff, deleted, more: false };
}

/** The worker's cron trigger (wrangler.toml [triggers]). */
export async function scheduled(_controller: ScheduledController, env: Env): Promise<void> {
  const report = await expireEvents(env);
  if (report.cutoff)
    console.log(
      `retention: deleted ${report.deleted} events before ${report.cutoff}${report.more ? "; more remain for the next run" : ""}`,
    );
}
