import { and, count, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db/client";
import { activityLog } from "../db/schema";
import { actorOf, type Principal } from "./auth/principal";
import { withParams } from "./pagination";

/**
 * The shared activity log (PostHog's ActivityLog): one row per change of a person, flag, cohort or
 * endpoint, rendered as PostHog renders `ActivityLogSerializer`. Any area writes through
 * `activityEntry` / `activityEntries` and reads through `activityPage`.
 */
export type ActivityScope = "Person" | "FeatureFlag" | "Cohort" | "Endpoint";

export interface ActivityChange {
  type: ActivityScope;
  action: "changed" | "created" | "deleted" | "split" | "merged";
  field: string | null;
  before: unknown;
  after: unknown;
}

export interface ActivityInput {
  projectId: number;
  scope: ActivityScope;
  itemId: string | number;
  activity: string;
  principal: Principal;
  /** Display name of the item (PostHog's `detail.name`). */
  name?: string | null;
  changes?: ActivityChange[] | null;
  shortId?: string | null;
  trigger?: Record<string, unknown> | null;
}

function values(input: ActivityInput) {
  return {
    id: crypto.randomUUID(),
    projectId: input.projectId,
    scope: input.scope,
    itemId: String(input.itemId),
    activity: input.activity,
    actor: actorOf(input.principal),
    detail: {
      changes: input.changes ?? null,
      trigger: input.trigger ?? null,
      name: input.name ?? null,
      short_id: input.shortId ?? null,
      type: null,
    },
    createdAt: new Date().toISOString(),
  };
}

/** The insert for one entry, to put in the same `db.batch` as the change it records. */
export const activityEntry = (db: Db, input: ActivityInput) => db.insert(activityLog).values(values(input));

/**
 * One INSERT for any number of entries (rows travel as one JSON value), for batches that record
 * many changes at once (bulk deletion) without one statement per entry.
 */
export function activityEntries(inputs: ActivityInput[], itemIdSql?: SQL): SQL {
  const rows = inputs
    .map(values)
    .map((v) => ({ ...v, actor: JSON.stringify(v.actor), detail: JSON.stringify(v.detail) }));
  // `itemIdSql` stands in for the item id when it is only known inside the batch (a row inserted just before).
  const itemId = itemIdSql ? sql`CAST(${itemIdSql} AS TEXT)` : sql`j.value ->> '$.itemId'`;
  return sql`INSERT INTO activity_log (id, project_id, scope, item_id, activity, actor, detail, created_at)
    SELECT j.value ->> '$.id', j.value ->> '$.projectId', j.value ->> '$.scope', ${itemId}, j.value ->> '$.activity',
      j.value ->> '$.actor', j.value ->> '$.detail', j.value ->> '$.createdAt'
    FROM json_each(${JSON.stringify(rows)}) j`;
}

/** `before`/`after` of every top-level key that differs between two property objects. */
export function propertyChanges(
  type: ActivityScope,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): ActivityChange[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .map((k) => ({
      type,
      action: "changed" as const,
      field: `properties.${k}`,
      before: before[k] ?? null,
      after: after[k] ?? null,
    }));
}

/**
 * PostHog's activity response: `{results, next, previous, total_count}`, newest first, paged by
 * `limit` (default 10) and 1-based `page`; links are absolute with `page` and `limit` set.
 */
export async function activityPage(
  db: Db,
  where: { projectId: number; scope: ActivityScope; itemId?: string },
  requestUrl: string,
  paging: { limit?: number; page?: number },
) {
  const { limit = 10, page = 1 } = paging;
  const filter = and(
    eq(activityLog.projectId, where.projectId),
    eq(activityLog.scope, where.scope),
    where.itemId === undefined ? undefined : eq(activityLog.itemId, where.itemId),
  );
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(activityLog)
      .where(filter)
      .orderBy(desc(activityLog.createdAt), desc(activityLog.id))
      .limit(limit)
      .offset((page - 1) * limit),
    db.select({ n: count() }).from(activityLog).where(filter).get(),
  ]);
  const totalCount = total?.n ?? 0;
  const link = (to: number) => withParams(requestUrl, { page: to, limit });
  return {
    results: rows.map((r) => ({
      id: r.id,
      user: r.actor,
      activity: r.activity,
      scope: r.scope,
      item_id: r.itemId,
      detail: r.detail,
      created_at: r.createdAt,
    })),
    next: page * limit < totalCount ? link(page + 1) : null,
    previous: page > 1 ? link(page - 1) : null,
    total_count: totalCount,
  };
}
