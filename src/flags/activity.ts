import { type SQL, sql } from "drizzle-orm";
import { actorOf, type Principal } from "../lib/auth/principal";
import { nowIso } from "../lib/time/iso";

/**
 * Writing flag entries of the shared activity log (PostHog's `scope: "FeatureFlag"`; read through
 * src/lib/activity-log.ts `activityPage`). Flag writes need an entry that is inserted only when
 * the conditional UPDATE before it in the same batch changed a row, which the shared
 * `activityEntry` cannot express, so the statement is built here.
 */
const SCOPE = "FeatureFlag";

export type FlagActivity = "created" | "updated" | "deleted" | "restored";

export interface Change {
  type: "FeatureFlag";
  action: "created" | "changed" | "deleted";
  field?: string;
  before?: unknown;
  after?: unknown;
}

/** Field-level changes between two records (only the writable fields PostHog logs). */
export function changesBetween(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  fields: readonly string[],
): Change[] {
  return fields
    .filter((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f]))
    .map((field) => ({ type: SCOPE, action: "changed", field, before: before[field], after: after[field] }));
}

/**
 * The insert for one entry, as a D1 statement to run in the same `batch` as the write it
 * describes. It only inserts when that write changed a row (`changes()`), so a lost
 * optimistic-concurrency race logs nothing; `flagId: "last_insert"` names the flag a preceding
 * INSERT created. (Raw D1 because drizzle cannot batch raw SQL with parameters.)
 */
export function flagActivityInsert(entry: {
  projectId: number;
  flagId: number | "last_insert";
  flagKey: string;
  activity: FlagActivity;
  principal: Principal;
  changes: Change[];
}): SQL {
  const detail = JSON.stringify({
    id: null,
    changes: entry.changes,
    merge: null,
    trigger: null,
    name: entry.flagKey,
    short_id: null,
    type: null,
  });
  const item = entry.flagId === "last_insert" ? sql`CAST(last_insert_rowid() AS TEXT)` : sql`${String(entry.flagId)}`;
  const actor = JSON.stringify(actorOf(entry.principal));
  return sql`INSERT INTO activity_log (id, project_id, scope, item_id, activity, actor, detail, created_at)
    SELECT ${crypto.randomUUID()}, ${entry.projectId}, ${SCOPE}, item, ${entry.activity}, ${actor}, json_set(${detail}, '$.id', item), ${nowIso()}
    FROM (SELECT ${item} AS item) WHERE changes() > 0`;
}
