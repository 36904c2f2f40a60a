import { and, asc, count, desc, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import { liveCohorts } from "../shared/cohorts/reads";
import type { Db } from "../db/client";
import { featureFlags } from "../db/schema";
import { chunked } from "../lib/d1";
import type { Page } from "../lib/pagination";
import type { FlagRow } from "./row";
import { containsText } from "../lib/contains-text";

const STALE_DAYS = 30;

export interface ListFilters {
  search?: string;
  active?: "true" | "false" | "STALE";
  type?: "boolean" | "multivariant" | "experiment" | "remote_config";
  tags?: string;
  evaluation_runtime?: string;
  order?: string;
}

const variantCount = sql`coalesce(json_array_length(${featureFlags.filters}, '$.multivariate.variants'), 0)`;

/** Fully rolled out, in SQL (status.ts `fullRolloutReason` is the same rule for one flag). */
const fullyRolledOut = sql`(json_type(${featureFlags.filters}, '$.groups') IS NULL OR EXISTS (
  SELECT 1 FROM json_each(${featureFlags.filters}, '$.groups') g
  WHERE coalesce(json_extract(g.value, '$.rollout_percentage'), 100) = 100
    AND coalesce(json_array_length(g.value, '$.properties'), 0) = 0
    AND (${variantCount} = 0 OR json_extract(g.value, '$.variant') IS NOT NULL OR EXISTS (
      SELECT 1 FROM json_each(${featureFlags.filters}, '$.multivariate.variants') v
      WHERE json_extract(v.value, '$.rollout_percentage') = 100))))`;

function staleCondition(): SQL {
  const cutoff = new Date(Date.now() - STALE_DAYS * 86_400_000).toISOString();
  return sql`(${featureFlags.active} = 1 AND (${featureFlags.lastCalledAt} < ${cutoff} OR
    (${featureFlags.lastCalledAt} IS NULL AND ${featureFlags.createdAt} < ${cutoff} AND ${fullyRolledOut})))`;
}

function tagsCondition(raw: string): SQL | undefined {
  let tags: unknown;
  try {
    tags = JSON.parse(raw);
  } catch {
    return undefined; // PostHog ignores malformed JSON here.
  }
  if (!Array.isArray(tags) || !tags.length) return undefined;
  const list = tags.map((t) => String(t).trim().toLowerCase()).slice(0, 90);
  return sql`EXISTS (SELECT 1 FROM json_each(${featureFlags.tags}) t WHERE t.value IN (${sql.join(
    list.map((t) => sql`${t}`),
    sql`, `,
  )}))`;
}

function listWhere(projectId: number, f: ListFilters): SQL | undefined {
  return and(
    eq(featureFlags.projectId, projectId),
    eq(featureFlags.deleted, false),
    f.search ? or(containsText(featureFlags.key, f.search), containsText(featureFlags.name, f.search)) : undefined,
    f.active === "true"
      ? eq(featureFlags.active, true)
      : f.active === "false"
        ? eq(featureFlags.active, false)
        : undefined,
    f.active === "STALE" ? staleCondition() : undefined,
    f.type === "boolean" ? sql`${variantCount} = 0` : undefined,
    f.type === "multivariant" ? sql`${variantCount} > 0` : undefined,
    // There are no experiments here, so no flag is an experiment flag.
    f.type === "experiment" ? sql`0` : undefined,
    f.type === "remote_config" ? eq(featureFlags.isRemoteConfiguration, true) : undefined,
    f.tags ? tagsCondition(f.tags) : undefined,
    f.evaluation_runtime ? eq(featureFlags.evaluationRuntime, f.evaluation_runtime) : undefined,
  );
}

const ORDER_COLUMNS = {
  key: featureFlags.key,
  created_at: featureFlags.createdAt,
  updated_at: featureFlags.updatedAt,
  name: featureFlags.name,
};

export async function listFlags(db: Db, projectId: number, filters: ListFilters, page: Page) {
  const where = listWhere(projectId, filters);
  const order = filters.order ?? "-created_at";
  const column = ORDER_COLUMNS[order.replace(/^-/, "") as keyof typeof ORDER_COLUMNS];
  const direction = order.startsWith("-") ? desc : asc;
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(featureFlags)
      .where(where)
      .orderBy(direction(column), direction(featureFlags.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(featureFlags).where(where).get(),
  ]);
  return { rows, count: total?.n ?? 0 };
}

/** A flag of the project by id, soft-deleted ones included (PostHog still serves them). */
export async function getFlag(db: Db, projectId: number, id: number): Promise<FlagRow | undefined> {
  return db
    .select()
    .from(featureFlags)
    .where(and(eq(featureFlags.projectId, projectId), eq(featureFlags.id, id)))
    .get();
}

/** The live flag holding `key`, if any. */
export async function liveFlagByKey(db: Db, projectId: number, key: string): Promise<FlagRow | undefined> {
  return db
    .select()
    .from(featureFlags)
    .where(and(eq(featureFlags.projectId, projectId), eq(featureFlags.key, key), eq(featureFlags.deleted, false)))
    .get();
}

/** `{id: key}` for live flags among `ids`. */
export async function keysOf(db: Db, projectId: number, ids: number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (const chunk of chunked(ids)) {
    const rows = await db
      .select({ id: featureFlags.id, key: featureFlags.key })
      .from(featureFlags)
      .where(
        and(eq(featureFlags.projectId, projectId), eq(featureFlags.deleted, false), inArray(featureFlags.id, chunk)),
      );
    for (const r of rows) out.set(r.id, r.key);
  }
  return out;
}

/** Names of the project's cohorts, for `cohort_name` in records. */
export async function cohortNames(db: Db, projectId: number, flags: FlagRow[]): Promise<Map<number, string>> {
  const usesCohorts = flags.some((f) => JSON.stringify(f.filters).includes('"cohort"'));
  if (!usesCohorts) return new Map();
  return new Map((await liveCohorts(db, projectId)).map((c) => [c.id, c.name]));
}

/** Marks flags as called, at most once a minute per project (run after the response). */
export async function touchLastCalled(db: Db, projectId: number, keys: string[]): Promise<void> {
  const now = new Date().toISOString();
  for (const chunk of chunked(keys)) {
    await db
      .update(featureFlags)
      .set({ lastCalledAt: now })
      .where(
        and(eq(featureFlags.projectId, projectId), eq(featureFlags.deleted, false), inArray(featureFlags.key, chunk)),
      );
  }
}
