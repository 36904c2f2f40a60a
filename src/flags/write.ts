import { and, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { featureFlags } from "../db/schema";
import type { Env } from "../env";
import type { Principal } from "../lib/auth/principal";
import { conflict, notFound, validationError } from "../lib/errors";
import { nowIso } from "../lib/time/iso";
import { changesBetween, flagActivityInsert, type FlagActivity } from "./activity";
import { refreshFlagDefinitions } from "./definitions-cache";
import { flagRecord } from "./record";
import type { FlagRow } from "./row";
import { dependentFlags, filterReferences } from "./references";
import type { FlagInput } from "./schema";
import { getFlag, liveFlagByKey } from "./service";
import { checkKeyFormat, normalizePayloads, validateFilters } from "./validate";
import { runBatch } from "../lib/d1";

/** Fields whose changes the activity log records. */
const LOGGED_FIELDS = [
  "name",
  "key",
  "filters",
  "deleted",
  "active",
  "ensure_experience_continuity",
  "rollback_conditions",
  "performed_rollback",
  "tags",
  "evaluation_tags",
  "analytics_dashboards",
  "has_enriched_analytics",
  "is_remote_configuration",
  "has_encrypted_payloads",
  "evaluation_runtime",
  "bucketing_identifier",
] as const;

type Insert = typeof featureFlags.$inferInsert;

const normalizeTags = (tags: string[]) => [...new Set(tags.map((t) => t.trim().toLowerCase()).filter(Boolean))];

async function checkKey(db: Db, projectId: number, key: string, selfId?: number) {
  const holder = await liveFlagByKey(db, projectId, key);
  if (holder && holder.id !== selfId)
    throw validationError("There is already a feature flag with this key.", "key", "unique");
  checkKeyFormat(key);
}

async function checkDependents(db: Db, projectId: number, flag: FlagRow, verb: "delete" | "disable") {
  const dependents = await dependentFlags(db, projectId, flag.id);
  if (!dependents.length) return;
  const listed = dependents
    .slice(0, 5)
    .map((d) => `${d.key} (ID: ${d.id})`)
    .join(", ");
  const more = dependents.length > 5 ? ` and ${dependents.length - 5} more` : "";
  throw validationError(
    `Cannot ${verb} this feature flag because other flags depend on it: ${listed}${more}. Please update or disable the dependent flags first.`,
  );
}

/** Maps validated input onto columns (only the fields present). */
function columnsOf(input: FlagInput): Partial<Insert> {
  const out: Partial<Insert> = {};
  if (input.name !== undefined) out.name = input.name ?? "";
  if (input.key !== undefined) out.key = input.key;
  if (input.filters !== undefined) out.filters = normalizePayloads(input.filters);
  if (input.deleted !== undefined) out.deleted = input.deleted;
  if (input.active !== undefined) out.active = input.active;
  if (input.created_at !== undefined) out.createdAt = new Date(input.created_at).toISOString();
  if (input.ensure_experience_continuity !== undefined)
    out.ensureExperienceContinuity = input.ensure_experience_continuity;
  if (input.rollback_conditions !== undefined) out.rollbackConditions = input.rollback_conditions;
  if (input.performed_rollback !== undefined) out.performedRollback = input.performed_rollback;
  if (input.tags !== undefined) out.tags = normalizeTags(input.tags);
  if (input.evaluation_tags !== undefined) out.evaluationTags = normalizeTags(input.evaluation_tags);
  if (input.analytics_dashboards !== undefined) out.analyticsDashboards = input.analytics_dashboards;
  if (input.has_enriched_analytics !== undefined) out.hasEnrichedAnalytics = input.has_enriched_analytics;
  if (input.creation_context !== undefined) out.creationContext = input.creation_context;
  if (input.is_remote_configuration !== undefined) out.isRemoteConfiguration = input.is_remote_configuration;
  if (input.has_encrypted_payloads !== undefined) out.hasEncryptedPayloads = input.has_encrypted_payloads;
  if (input.evaluation_runtime !== undefined) out.evaluationRuntime = input.evaluation_runtime;
  if (input.bucketing_identifier !== undefined) out.bucketingIdentifier = input.bucketing_identifier;
  if (input.active === true) out.performedRollback = false;
  return out;
}

async function validateInput(
  db: Db,
  projectId: number,
  input: FlagInput,
  merged: { key: string; tags: string[]; evaluationTags: string[] },
  flag?: FlagRow,
) {
  if (input.key !== undefined) await checkKey(db, projectId, input.key, flag?.id);
  if (input.analytics_dashboards?.length) {
    throw validationError(
      `Dashboard with id ${input.analytics_dashboards[0]} does not exist`,
      "analytics_dashboards",
      "does_not_exist",
    );
  }
  if (input.filters !== undefined && !(flag && !Array.isArray(input.filters.groups))) {
    const refs = filterReferences(db, projectId);
    await validateFilters(input.filters, {
      creating: !flag,
      flagId: flag?.id,
      flagKey: merged.key,
      refs,
      keyOf: async (id) => (id === flag?.id ? merged.key : ((await refs.flag(id))?.key ?? String(id))),
    });
  }
  if (merged.evaluationTags.some((t) => !merged.tags.includes(t))) {
    throw validationError("Evaluation tags must be a subset of tags", "evaluation_tags");
  }
}

/** A drizzle statement as a D1 statement, so it can share a raw `batch` with the activity insert. */
/** A unique-index race lost after our own check: the same error PostHog gives. */
function mapUniqueRace(err: unknown): never {
  if (String((err as Error)?.message ?? err).includes("UNIQUE"))
    throw validationError("There is already a feature flag with this key.", "key", "unique");
  throw err;
}

export async function createFlag(
  env: Env,
  db: Db,
  projectId: number,
  principal: Principal,
  input: FlagInput & { key: string },
) {
  const tags = normalizeTags(input.tags ?? []);
  await validateInput(db, projectId, input, {
    key: input.key,
    tags,
    evaluationTags: normalizeTags(input.evaluation_tags ?? []),
  });
  const now = nowIso();
  const values: Insert = {
    createdAt: now,
    ...columnsOf(input),
    projectId,
    key: input.key,
    version: 1,
    evaluationRuntime: input.evaluation_runtime ?? "all",
    bucketingIdentifier: input.bucketing_identifier ?? "distinct_id",
    createdBy: principal.label,
    lastModifiedBy: principal.label,
    updatedAt: now,
  };
  const [inserted] = await runBatch(db, [
    db.insert(featureFlags).values(values).returning({ id: featureFlags.id }),
    flagActivityInsert({
      projectId,
      flagId: "last_insert",
      flagKey: input.key,
      activity: "created",
      principal,
      changes: [{ type: "FeatureFlag", action: "created" }],
    }),
  ]).catch(mapUniqueRace);
  await refreshFlagDefinitions(env, db, projectId);
  return (await getFlag(db, projectId, (inserted.results[0] as { id: number }).id))!;
}

/**
 * PATCH (partial) and PUT (full) share this path. A request carrying a `version` older than the
 * stored one is refused with 409 (the rule, stricter than PostHog); the UPDATE itself is
 * conditional on the version read, so a concurrent writer also yields 409 and nothing is logged.
 */
export async function updateFlag(
  env: Env,
  db: Db,
  projectId: number,
  principal: Principal,
  id: number,
  input: FlagInput,
) {
  const flag = await getFlag(db, projectId, id);
  if (!flag) throw notFound();
  const staleConflict = () =>
    conflict(
      `The feature flag was updated by ${flag.lastModifiedBy ?? "another user"} since you started editing it. Please refresh and try again.`,
    );
  if (input.version !== undefined && input.version < flag.version) throw staleConflict();

  const key = input.key ?? flag.key;
  const tags = input.tags !== undefined ? normalizeTags(input.tags) : flag.tags;
  const evaluationTags =
    input.evaluation_tags !== undefined ? normalizeTags(input.evaluation_tags) : flag.evaluationTags;
  // Restoring a flag re-claims its key, so uniqueness is checked as for a new key.
  const restoring = flag.deleted && input.deleted === false;
  await validateInput(
    db,
    projectId,
    { ...input, key: input.key ?? (restoring ? flag.key : undefined) },
    { key, tags, evaluationTags },
    flag,
  );
  if (input.deleted === true && !flag.deleted) await checkDependents(db, projectId, flag, "delete");
  if (input.active === false && flag.active && !flag.deleted) await checkDependents(db, projectId, flag, "disable");

  const columns = columnsOf(input);
  // V-B: a PATCH of filters without `groups` keeps the stored filters.
  if (input.filters !== undefined && !Array.isArray(input.filters.groups)) delete columns.filters;
  const next: FlagRow = {
    ...flag,
    ...columns,
    version: flag.version + 1,
    lastModifiedBy: principal.label,
    updatedAt: nowIso(),
  } as FlagRow;
  const activity: FlagActivity =
    input.deleted === true && !flag.deleted ? "deleted" : restoring ? "restored" : "updated";
  const changes = changesBetween(flagRecord(flag), flagRecord(next), LOGGED_FIELDS);

  const update = db
    .update(featureFlags)
    .set({ ...columns, version: next.version, lastModifiedBy: next.lastModifiedBy, updatedAt: next.updatedAt })
    .where(and(eq(featureFlags.id, id), eq(featureFlags.projectId, projectId), eq(featureFlags.version, flag.version)));
  const [updated] = await runBatch(db, [
    update,
    flagActivityInsert({ projectId, flagId: id, flagKey: key, activity, principal, changes }),
  ]).catch(mapUniqueRace);
  if (!updated.meta.changes) throw staleConflict();
  await refreshFlagDefinitions(env, db, projectId);
  return (await getFlag(db, projectId, id))!;
}

/** DELETE: the same soft delete as PATCH `{deleted: true}` (PostHog answers 405 here). */
export async function deleteFlag(env: Env, db: Db, projectId: number, principal: Principal, id: number) {
  const flag = await getFlag(db, projectId, id);
  if (!flag) throw notFound();
  if (flag.deleted) return flag;
  return updateFlag(env, db, projectId, principal, id, { deleted: true });
}

/** Records that usage-dashboard enrichment was asked for (there is no dashboard product here). */
export async function enableEnrichedAnalytics(env: Env, db: Db, projectId: number, principal: Principal, id: number) {
  const flag = await getFlag(db, projectId, id);
  if (!flag || flag.deleted) throw notFound();
  if (flag.hasEnrichedAnalytics) return flag;
  return updateFlag(env, db, projectId, principal, id, { has_enriched_analytics: true });
}
