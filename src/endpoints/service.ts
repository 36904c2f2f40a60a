import { and, count, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { endpoints, endpointVersions } from "../db/schema";
import { notFound, validationError } from "../lib/errors";
import type { Page } from "../lib/pagination";

export type EndpointRow = typeof endpoints.$inferSelect;
export type VersionRow = typeof endpointVersions.$inferSelect;

export async function findEndpoint(db: Db, projectId: number, name: string): Promise<EndpointRow | undefined> {
  return db
    .select()
    .from(endpoints)
    .where(and(eq(endpoints.projectId, projectId), eq(endpoints.name, name)))
    .get();
}

export async function getEndpoint(db: Db, projectId: number, name: string): Promise<EndpointRow> {
  const endpoint = await findEndpoint(db, projectId, name);
  if (!endpoint) throw notFound();
  return endpoint;
}

/** A page of the project's endpoints, each with its current version and version count, newest first. */
export async function listEndpoints(
  db: Db,
  projectId: number,
  filters: { isActive?: boolean; createdBy?: string },
  page: Page,
) {
  const conditions = [eq(endpoints.projectId, projectId)];
  if (filters.isActive !== undefined) conditions.push(eq(endpoints.isActive, filters.isActive));
  if (filters.createdBy !== undefined) conditions.push(eq(endpoints.createdBy, filters.createdBy));
  const where = and(...conditions);
  const versionsCount = sql<number>`(SELECT count(*) FROM ${endpointVersions} AS v WHERE v.endpoint_id = ${endpoints.id})`;
  // Two statements, not a batch: drizzle maps a batched join's rows by column name, and both tables have `id`.
  const [rows, [{ total }]] = await Promise.all([
    db
      .select({ endpoint: endpoints, version: endpointVersions, versionsCount })
      .from(endpoints)
      .innerJoin(
        endpointVersions,
        and(eq(endpointVersions.endpointId, endpoints.id), eq(endpointVersions.version, endpoints.currentVersion)),
      )
      .where(where)
      .orderBy(desc(endpoints.createdAt), desc(endpoints.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ total: count() }).from(endpoints).where(where),
  ]);
  return { rows, count: total };
}

export async function findVersion(db: Db, endpointId: string, version: number): Promise<VersionRow | undefined> {
  return db
    .select()
    .from(endpointVersions)
    .where(and(eq(endpointVersions.endpointId, endpointId), eq(endpointVersions.version, version)))
    .get();
}

export async function currentVersion(db: Db, endpoint: EndpointRow): Promise<VersionRow> {
  const version = await findVersion(db, endpoint.id, endpoint.currentVersion);
  if (!version) throw new Error(`endpoint ${endpoint.id} lacks its current version`);
  return version;
}

export async function listVersions(db: Db, endpointId: string): Promise<VersionRow[]> {
  return db
    .select()
    .from(endpointVersions)
    .where(eq(endpointVersions.endpointId, endpointId))
    .orderBy(desc(endpointVersions.version))
    .all();
}

export async function countVersions(db: Db, endpointId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(endpointVersions)
    .where(eq(endpointVersions.endpointId, endpointId));
  return row?.n ?? 0;
}

/**
 * A run's endpoint and version in one D1 round trip (runs are the hot path): the given version,
 * else the current one. The version is undefined when that number does not exist.
 */
export async function findRunTarget(db: Db, projectId: number, name: string, version: number | undefined) {
  const row = await db
    .select({ endpoint: endpoints, version: endpointVersions })
    .from(endpoints)
    .leftJoin(
      endpointVersions,
      and(
        eq(endpointVersions.endpointId, endpoints.id),
        eq(endpointVersions.version, version ?? endpoints.currentVersion),
      ),
    )
    .where(and(eq(endpoints.projectId, projectId), eq(endpoints.name, name)))
    .get();
  return row ? { endpoint: row.endpoint, version: row.version ?? undefined } : undefined;
}

/** `?version=` / body `version`: an integer, else PostHog's 400. */
export function parseVersionParam(raw: unknown): number | undefined {
  if (raw === undefined || raw === null || raw === "") return undefined;
  const n = typeof raw === "number" ? raw : /^\d+$/.test(String(raw)) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n)) throw validationError(`Invalid version parameter: ${String(raw)}`, "version");
  return n;
}

export async function requireVersion(db: Db, endpoint: EndpointRow, version: number): Promise<VersionRow> {
  const row = await findVersion(db, endpoint.id, version);
  if (!row) throw notFound(`Version ${version} not found for endpoint '${endpoint.name}'`);
  return row;
}

/** An endpoint and the version `?version=` names (else its current one), for retrieve, status and openapi.json. */
export async function endpointVersion(db: Db, projectId: number, name: string, rawVersion: string | undefined) {
  const endpoint = await getEndpoint(db, projectId, name);
  const n = parseVersionParam(rawVersion);
  const version = n === undefined ? await currentVersion(db, endpoint) : await requireVersion(db, endpoint, n);
  return { endpoint, version, targeted: n !== undefined };
}

/** PostHog writes last_executed_at at most once an hour. */
export async function touchLastExecuted(db: Db, endpointId: string, last: string | null) {
  if (last && Date.parse(last) > Date.now() - 3600_000) return;
  await db.update(endpoints).set({ lastExecutedAt: new Date().toISOString() }).where(eq(endpoints.id, endpointId));
}
