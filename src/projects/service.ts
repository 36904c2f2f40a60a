import { count, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { projects } from "../db/schema";
import type { Principal } from "../lib/auth/principal";
import { validationError } from "../lib/errors";
import { randomToken } from "../lib/crypto";
import type { Page } from "../lib/pagination";
import type { WeekStart } from "../lib/time/zone";

export type Project = typeof projects.$inferSelect;

/** The project's first day of a week (its `week_start_day`; the column holds 0 or 1). */
export const weekStartOf = (project: Project): WeekStart => (project.weekStartDay === 1 ? 1 : 0);

/** The public project token SDKs send with events and flag requests. */
export const newProjectToken = () => `phc_${randomToken(43)}`;

export async function getProject(db: Db, id: number): Promise<Project | undefined> {
  return db.select().from(projects).where(eq(projects.id, id)).get();
}

/** Every project's id, for work that runs over all of them (the scheduled retention). */
export async function allProjectIds(db: Db): Promise<number[]> {
  const rows = await db.select({ id: projects.id }).from(projects).orderBy(projects.id);
  return rows.map((r) => r.id);
}

/**
 * Whether a string could be a project token at all: ours are `phc_` and 43 base62 characters;
 * anything much longer or with other characters is refused before it reaches D1 or becomes a KV
 * key (KV keys stop at 512 bytes).
 */
export const isWellFormedProjectToken = (token: string) => /^[A-Za-z0-9_-]{1,200}$/.test(token);

/** The project of a token; undefined for an unknown or malformed one (callers answer 401). */
export async function getProjectByToken(db: Db, token: string): Promise<Project | undefined> {
  if (!isWellFormedProjectToken(token)) return undefined;
  return db.select().from(projects).where(eq(projects.apiToken, token)).get();
}

/**
 * `projects.id IN (...)` with the ids as ONE bound JSON value: a key may be scoped to up to 1000
 * projects, and D1 allows at most 100 bound parameters per statement.
 */
const idIn = (ids: number[]) => sql`${projects.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;

export async function listProjects(db: Db, principal: Principal, page: Page) {
  const visible =
    principal.kind === "personal_api_key" && principal.scopedProjects !== null
      ? idIn(principal.scopedProjects)
      : undefined;
  const [rows, total] = await Promise.all([
    db.select().from(projects).where(visible).orderBy(projects.id).limit(page.limit).offset(page.offset),
    db.select({ n: count() }).from(projects).where(visible).get(),
  ]);
  return { rows, count: total?.n ?? 0 };
}

/** What a create or PATCH may set; undefined fields are left as they are (or defaulted). */
export interface ProjectSettings {
  name?: string;
  timezone?: string;
  testAccountFilters?: Record<string, unknown>[];
  weekStartDay?: number;
}

/** Drizzle leaves undefined fields out of an insert (column defaults apply) and of an update. */
export async function createProject(db: Db, input: ProjectSettings & { name: string }): Promise<Project> {
  return db
    .insert(projects)
    .values({ ...input, apiToken: newProjectToken() })
    .returning()
    .get();
}

export async function updateProject(db: Db, id: number, input: ProjectSettings) {
  if (Object.values(input).every((v) => v === undefined)) return getProject(db, id);
  return db.update(projects).set(input).where(eq(projects.id, id)).returning().get();
}

/** The ids among `ids` that name no project. */
export async function missingProjectIds(db: Db, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  const found = await db.select({ id: projects.id }).from(projects).where(idIn(ids));
  const known = new Set(found.map((p) => p.id));
  return ids.filter((id) => !known.has(id));
}

/**
 * The project a key means by `@current`: its only project (a key scoped to one, or any key on a
 * deployment with a single project); undefined when it reaches several. `reachable` holds the
 * first ten it reaches, by id.
 */
export async function currentProjectOf(
  db: Db,
  principal: Principal,
): Promise<{ project?: Project; reachable: Project[] }> {
  const { rows, count } = await listProjects(db, principal, { limit: 10, offset: 0 });
  return { project: count === 1 ? rows[0] : undefined, reachable: rows };
}

/**
 * `@current`, as PostHog accepts it in a project path: the project of the SDK's `?token=` when it
 * sends one (posthog-node 5, posthog-python), else the key's only project; undefined when there is
 * none. A key reaching several projects gets a 400 naming them. Whether the key may reach the
 * project is the caller's check, as for any project id.
 */
export async function resolveCurrentProject(
  db: Db,
  principal: Principal,
  token: string | undefined,
): Promise<Project | undefined> {
  if (token) return getProjectByToken(db, token);
  const { project, reachable } = await currentProjectOf(db, principal);
  if (project || !reachable.length) return project;
  const ids = reachable.map((p) => p.id).join(", ");
  throw validationError(
    `@current is ambiguous: this key reaches several projects (${ids}${reachable.length >= 10 ? ", ..." : ""}). ` +
      "Use the project's id in the path, or send the project token as ?token=.",
    "project_id",
  );
}
