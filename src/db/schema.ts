import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Timestamps are stored as ISO 8601 UTC text with milliseconds and a `Z` (sortable as text). */
const createdAt = () =>
  text("created_at")
    .notNull()
    .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`);

/**
 * This deployment's identity: one row, written by the migration that created the table and never
 * changed. A ClickHouse database records the identity it belongs to (`npm run clickhouse:migrate`),
 * so a worker never reads or writes another deployment's events (src/analytics/clickhouse/deployment.ts).
 */
export const deployment = sqliteTable(
  "deployment",
  {
    /** Always 1: the table holds one row. */
    one: integer("one").primaryKey().default(1),
    id: text("id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [check("deployment_one_row", sql`${t.one} = 1`)],
);

export const projects = sqliteTable(
  "projects",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    apiToken: text("api_token").notNull(),
    timezone: text("timezone").notNull().default("UTC"),
    /** Property filters that mark internal and test users; analysis applies them on `filter_test_accounts=true`. */
    testAccountFilters: text("test_account_filters", { mode: "json" })
      .$type<Record<string, unknown>[]>()
      .notNull()
      .default(sql`'[]'`),
    /** The first day of a week in insights and drill-downs: 0 Sunday (PostHog's default), 1 Monday. */
    weekStartDay: integer("week_start_day").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("projects_api_token_unique").on(t.apiToken)],
);

export const personalApiKeys = sqliteTable(
  "personal_api_keys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    label: text("label").notNull(),
    /** Hex SHA-256 of the plaintext key; the plaintext is never stored. */
    secureValue: text("secure_value").notNull(),
    maskValue: text("mask_value").notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    /** Null means every project. */
    scopedProjects: text("scoped_projects", { mode: "json" }).$type<number[] | null>(),
    createdAt: createdAt(),
    lastUsedAt: text("last_used_at"),
  },
  (t) => [uniqueIndex("personal_api_keys_secure_value_unique").on(t.secureValue)],
);

export const activityLog = sqliteTable(
  "activity_log",
  {
    id: text("id").primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** The area, as PostHog names it: Person, FeatureFlag, Cohort, Endpoint. */
    scope: text("scope").notNull(),
    itemId: text("item_id").notNull(),
    activity: text("activity").notNull(),
    /** Who did it: `{ first_name, email }` or the system marker, as PostHog renders `user`. */
    actor: text("actor", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    detail: text("detail", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("activity_log_scope_item_idx").on(t.projectId, t.scope, t.itemId, t.createdAt)],
);

// ---------------------------------------------------------------------------------------------
// Persons, events and groups (capture and the persons area)
// ---------------------------------------------------------------------------------------------

export const persons = sqliteTable(
  "persons",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    uuid: text("uuid").notNull(),
    properties: text("properties", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    isIdentified: integer("is_identified", { mode: "boolean" }).notNull().default(false),
    createdAt: createdAt(),
    /** Bumped on every write, as PostHog's person version. */
    version: integer("version").notNull().default(0),
  },
  (t) => [
    uniqueIndex("persons_uuid_unique").on(t.projectId, t.uuid),
    // The persons list order: newest first.
    index("persons_project_created_idx").on(t.projectId, t.createdAt, t.id),
    // The persons list's `email` (an exact person property match, as PostHog's): an index lookup.
    index("persons_project_email_idx").on(t.projectId, sql`json_extract(${t.properties}, '$.email')`),
  ],
);

export const personDistinctIds = sqliteTable(
  "person_distinct_ids",
  {
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    distinctId: text("distinct_id").notNull(),
    personId: integer("person_id")
      .notNull()
      .references(() => persons.id, { onDelete: "cascade" }),
    version: integer("version").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("person_distinct_ids_unique").on(t.projectId, t.distinctId),
    index("person_distinct_ids_person_idx").on(t.personId),
  ],
);

export const events = sqliteTable(
  "events",
  {
    id: integer("id").primaryKey(),
    projectId: integer("project_id").notNull(),
    uuid: text("uuid").notNull(),
    event: text("event").notNull(),
    distinctId: text("distinct_id").notNull(),
    /** The person the event belongs to now (rewritten when persons merge or split); null without person processing. */
    personId: integer("person_id"),
    properties: text("properties", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    /** ISO 8601 UTC with milliseconds, after clock-skew correction. */
    timestamp: text("timestamp").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("events_project_timestamp_idx").on(t.projectId, t.timestamp),
    index("events_project_event_timestamp_idx").on(t.projectId, t.event, t.timestamp),
    index("events_project_person_timestamp_idx").on(t.projectId, t.personId, t.timestamp),
    // Unique: de-duplication of retried events (same uuid) is enforced by the database, not a read-then-insert.
    uniqueIndex("events_project_uuid_unique").on(t.projectId, t.uuid),
  ],
);

export const groupTypeMappings = sqliteTable(
  "group_type_mappings",
  {
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    groupType: text("group_type").notNull(),
    groupTypeIndex: integer("group_type_index").notNull(),
  },
  (t) => [
    uniqueIndex("group_type_mappings_type_unique").on(t.projectId, t.groupType),
    uniqueIndex("group_type_mappings_index_unique").on(t.projectId, t.groupTypeIndex),
  ],
);

export const groups = sqliteTable(
  "groups",
  {
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    groupTypeIndex: integer("group_type_index").notNull(),
    groupKey: text("group_key").notNull(),
    properties: text("properties", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    version: integer("version").notNull().default(0),
  },
  (t) => [uniqueIndex("groups_key_unique").on(t.projectId, t.groupTypeIndex, t.groupKey)],
);

// ---------------------------------------------------------------------------------------------
// Cohorts (used by persons and by flags)
// ---------------------------------------------------------------------------------------------

export const cohorts = sqliteTable(
  "cohorts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull().default(""),
    description: text("description").notNull().default(""),
    /** PostHog's `filters`: `{ properties: { type: "AND"|"OR", values: [...] } }`; empty for static cohorts. */
    filters: text("filters", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    isStatic: integer("is_static", { mode: "boolean" }).notNull().default(false),
    deleted: integer("deleted", { mode: "boolean" }).notNull().default(false),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: text("updated_at"),
    version: integer("version").notNull().default(1),
  },
  (t) => [index("cohorts_project_idx").on(t.projectId, t.deleted)],
);

/** Explicit members of static cohorts. */
export const cohortPeople = sqliteTable(
  "cohort_people",
  {
    cohortId: integer("cohort_id")
      .notNull()
      .references(() => cohorts.id, { onDelete: "cascade" }),
    personId: integer("person_id")
      .notNull()
      .references(() => persons.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.cohortId, t.personId] }), index("cohort_people_person_idx").on(t.personId)],
);

// ---------------------------------------------------------------------------------------------
// Feature flags
// ---------------------------------------------------------------------------------------------

export const featureFlags = sqliteTable(
  "feature_flags",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    /** PostHog keeps the flag's description in `name`. */
    name: text("name").notNull().default(""),
    filters: text("filters", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    deleted: integer("deleted", { mode: "boolean" }).notNull().default(false),
    version: integer("version").notNull().default(1),
    ensureExperienceContinuity: integer("ensure_experience_continuity", { mode: "boolean" }),
    rollbackConditions: text("rollback_conditions", { mode: "json" }),
    performedRollback: integer("performed_rollback", { mode: "boolean" }),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default([]),
    evaluationTags: text("evaluation_tags", { mode: "json" }).$type<string[]>().notNull().default([]),
    analyticsDashboards: text("analytics_dashboards", { mode: "json" }).$type<number[]>().notNull().default([]),
    hasEnrichedAnalytics: integer("has_enriched_analytics", { mode: "boolean" }),
    isRemoteConfiguration: integer("is_remote_configuration", { mode: "boolean" }),
    hasEncryptedPayloads: integer("has_encrypted_payloads", { mode: "boolean" }),
    evaluationRuntime: text("evaluation_runtime"),
    bucketingIdentifier: text("bucketing_identifier"),
    creationContext: text("creation_context"),
    createdBy: text("created_by"),
    lastModifiedBy: text("last_modified_by"),
    createdAt: createdAt(),
    updatedAt: text("updated_at"),
    lastCalledAt: text("last_called_at"),
  },
  (t) => [
    // A key is unique among the project's live flags; a soft-deleted flag frees its key.
    uniqueIndex("feature_flags_live_key_unique")
      .on(t.projectId, t.key)
      .where(sql`${t.deleted} = 0`),
    index("feature_flags_project_idx").on(t.projectId, t.deleted, t.createdAt),
  ],
);

/** Experience continuity: the identifier a person's flag was first bucketed by. */
export const flagHashKeyOverrides = sqliteTable(
  "flag_hash_key_overrides",
  {
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    personId: integer("person_id")
      .notNull()
      .references(() => persons.id, { onDelete: "cascade" }),
    featureFlagKey: text("feature_flag_key").notNull(),
    hashKey: text("hash_key").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.personId, t.featureFlagKey] })],
);

// ---------------------------------------------------------------------------------------------
// Saved-query endpoints
// ---------------------------------------------------------------------------------------------

/**
 * The plan a version stores in `endpoint_versions.compiled`, as the HogQL compiler returns it
 * (src/hogql/compile.ts for D1, src/hogql/clickhouse/compile.ts); a run only binds and executes it.
 * Declared here because the schema imports nothing of ours: the compiler's `CompiledQuery` is this type.
 * Parameters: the project, the variables in `variables` order, then LIMIT and OFFSET (D1: `?1`,
 * `?2`.., ClickHouse: `{team_id}`, `{var_<name>}`, `{limit}`, `{offset}`, and `{timezone}`).
 */
export interface CompiledPlan {
  /** The COMPILER_VERSION that produced it: plans saved by an older compiler are recompiled. */
  compiler: number;
  /** The analytics engine it was compiled for: a deployment on the other engine recompiles it. */
  engine: "d1" | "clickhouse";
  sql: string;
  variables: string[];
  /** Variables compared with IN: bound as a list (a scalar value as a one-element list). */
  lists: string[];
  /** ClickHouse: each variable's parameter type (`Nullable(String)`, `Array(String)`, ...). */
  variableParams?: Record<string, string>;
  /** The query's own top-level LIMIT / OFFSET (the run's limit can only lower the LIMIT). */
  limit: number | null;
  offset: number;
  columns: string[] | null;
  /**
   * The materialization transform's query, bound with the project and read in pages (its SQL ends
   * with the LIMIT and OFFSET parameters); `singleRow`: an ungrouped aggregate, whose reads fall
   * back to inline when the table has no row.
   */
  materialization: { sql: string; variables: string[]; singleRow?: boolean } | { reason: string };
}

export const endpoints = sqliteTable(
  "endpoints",
  {
    id: text("id").primaryKey(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    derivedFromInsight: text("derived_from_insight"),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    currentVersion: integer("current_version").notNull().default(1),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: text("updated_at"),
    lastExecutedAt: text("last_executed_at"),
  },
  (t) => [uniqueIndex("endpoints_name_unique").on(t.projectId, t.name)],
);

export const endpointVersions = sqliteTable(
  "endpoint_versions",
  {
    id: text("id").primaryKey(),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => endpoints.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    /** The query as saved (`{kind: "HogQLQuery", query, variables}`). */
    query: text("query", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** The SQL and parameter plan compiled when the version was saved (or last recompiled). */
    compiled: text("compiled", { mode: "json" }).$type<CompiledPlan>(),
    description: text("description").notNull().default(""),
    cacheAgeSeconds: integer("cache_age_seconds"),
    isMaterialized: integer("is_materialized", { mode: "boolean" }).notNull().default(false),
    syncFrequency: text("sync_frequency"),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    createdBy: text("created_by"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("endpoint_versions_unique").on(t.endpointId, t.version)],
);
