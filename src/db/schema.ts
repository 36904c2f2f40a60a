import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Timestamps are stored as ISO 8601 UTC text with milliseconds and a `Z` (sortable as text). */
const createdAt = () =>
  text("created_at")
    .notNull()
    .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`);

export const projects = sqliteTable(
  "projects",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    apiToken: text("api_token").notNull(),
    timezone: text("timezone").notNull().default("UTC"),
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
