import type { z } from "@hono/zod-openapi";
import { and, eq, exists, getTableColumns, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { endpoints, endpointVersions } from "../db/schema";
import { analyticsEngine } from "../analytics";
import type { Env } from "../env";
import type { Project } from "../projects/service";
import { conflict, validationError } from "../lib/errors";
import { canMaterialize, disableMaterialization, enableMaterialization, materializerFor } from "./materialization";
import { compileQuery, normalizeQuery, sameQuery } from "./query";
import { isHogQL } from "./saved-query-schema";
import {
  type CreateEndpointBody,
  DEFAULT_SYNC_FREQUENCY,
  NAME_MESSAGE,
  NAME_PATTERN,
  type UpdateEndpointBody,
} from "./schema";
import {
  currentVersion,
  type EndpointRow,
  findEndpoint,
  findVersion,
  getEndpoint,
  parseVersionParam,
  type VersionRow,
} from "./service";

type CreateBody = z.infer<typeof CreateEndpointBody>;
type UpdateBody = z.infer<typeof UpdateEndpointBody>;
const now = () => new Date().toISOString();

function checkMaterializationInputs(body: CreateBody, active: boolean) {
  if (body.is_materialized && !active)
    throw validationError("Cannot enable materialization on inactive endpoint.", "is_materialized");
  if (body.sync_frequency && !active)
    throw validationError("Cannot set sync_frequency on inactive endpoint.", "sync_frequency");
  if (body.is_materialized === false && body.sync_frequency)
    throw validationError("Cannot set sync_frequency when disabling materialization.", "sync_frequency");
}

/** Create: validated in PostHog's order, then the endpoint and its version 1 are written together. */
export async function createEndpoint(
  env: Env,
  db: Db,
  project: Project,
  body: CreateBody,
  actor: string,
): Promise<EndpointRow> {
  if (body.query === undefined) throw validationError("Must specify query", "query");
  if (!body.name) throw validationError("Endpoint must have a name.", "name");
  if (!NAME_PATTERN.test(body.name)) throw validationError(NAME_MESSAGE, "name");
  const query = normalizeQuery(body.query);
  const compiled = isHogQL(query) ? await compileQuery(query, analyticsEngine(env)) : null;
  const active = body.is_active ?? true;
  checkMaterializationInputs(body, active);
  if (await findEndpoint(db, project.id, body.name))
    throw validationError("An endpoint with this name already exists for this team.", "name");
  const endpoint: EndpointRow = {
    id: crypto.randomUUID(),
    projectId: project.id,
    name: body.name,
    derivedFromInsight: body.derived_from_insight ?? null,
    isActive: active,
    currentVersion: 1,
    createdBy: actor,
    createdAt: now(),
    updatedAt: now(),
    lastExecutedAt: null,
  };
  const version: VersionRow = {
    id: crypto.randomUUID(),
    endpointId: endpoint.id,
    version: 1,
    query,
    compiled,
    description: body.description ?? "",
    cacheAgeSeconds: body.cache_age_seconds ?? null,
    isMaterialized: !!body.is_materialized,
    syncFrequency: body.is_materialized ? (body.sync_frequency ?? DEFAULT_SYNC_FREQUENCY) : null,
    isActive: true,
    createdBy: actor,
    createdAt: now(),
  };
  if (version.isMaterialized && !canMaterialize(version).can_materialize) {
    throw validationError(`Cannot materialize endpoint. Reason: ${canMaterialize(version).reason}`, "is_materialized");
  }
  try {
    await db.batch([db.insert(endpoints).values(endpoint), db.insert(endpointVersions).values(version)]);
  } catch (error) {
    if (/UNIQUE/i.test(String(error)))
      throw validationError("An endpoint with this name already exists for this team.", "name");
    throw error;
  }
  if (version.isMaterialized) await enableMaterialization(env, endpoint, version, version.syncFrequency, project);
  return endpoint;
}

/**
 * PATCH/PUT (PostHog's E2b algorithm): a changed query makes a new version; description, cache age,
 * is_active and materialization apply to the targeted version (`?version=N` or body `version`),
 * else to the current one, with `is_active` then meaning the endpoint's flag.
 */
export async function updateEndpoint(
  env: Env,
  db: Db,
  project: Project,
  name: string,
  body: UpdateBody,
  versionParam: string | undefined,
  actor: string,
) {
  const endpoint = await getEndpoint(db, project.id, name);
  const target = parseVersionParam(body.version ?? versionParam);
  if (target !== undefined && body.query !== undefined) {
    throw validationError(
      "Cannot change query when targeting a specific version. Query changes create a new version.",
      "query",
    );
  }
  const current = await currentVersion(db, endpoint);
  let version = current;
  if (target !== undefined) {
    const found = await findVersion(db, endpoint.id, target);
    if (!found) throw validationError(`Version ${target} not found`, "version");
    version = found;
  }
  const endpointActive = target === undefined && body.is_active !== undefined ? body.is_active : endpoint.isActive;
  const versionActive = target !== undefined && body.is_active !== undefined ? body.is_active : version.isActive;
  const finalActive = endpointActive && versionActive;
  checkMaterializationInputs(body, finalActive);

  let created: VersionRow | null = null;
  if (body.query !== undefined) {
    const query = normalizeQuery(body.query);
    if (!sameQuery(query, current.query)) {
      const compiled = isHogQL(query) ? await compileQuery(query, analyticsEngine(env)) : null;
      created = {
        ...current,
        id: crypto.randomUUID(),
        version: endpoint.currentVersion + 1,
        query,
        compiled,
        isMaterialized: false,
        syncFrequency: null,
        isActive: true,
        createdBy: actor,
        createdAt: now(),
      };
    }
  }
  const base = created ?? version;
  const next: VersionRow = { ...base };
  if ("description" in body) next.description = body.description ?? "";
  if ("cache_age_seconds" in body) next.cacheAgeSeconds = body.cache_age_seconds ?? null;
  if (target !== undefined && body.is_active !== undefined) next.isActive = body.is_active;
  const previous = created ? current : version;
  let materialize = finalActive && (body.is_materialized ?? previous.isMaterialized);
  if (materialize && !canMaterialize(next).can_materialize) {
    if (body.is_materialized)
      throw validationError(`Cannot materialize endpoint. Reason: ${canMaterialize(next).reason}`, "is_materialized");
    materialize = false; // the new query cannot carry the old version's materialization over
  }
  next.isMaterialized = materialize;
  next.syncFrequency = materialize ? (body.sync_frequency ?? previous.syncFrequency ?? DEFAULT_SYNC_FREQUENCY) : null;

  const updatedEndpoint: EndpointRow = {
    ...endpoint,
    isActive: endpointActive,
    currentVersion: created ? created.version : endpoint.currentVersion,
    updatedAt: now(),
    derivedFromInsight:
      "derived_from_insight" in body ? (body.derived_from_insight ?? null) : endpoint.derivedFromInsight,
  };
  const { id: _id, ...endpointFields } = updatedEndpoint;
  const { id: _vid, ...versionFields } = next;
  // Optimistic concurrency: both writes apply only if the endpoint is still as read (same current
  // version, same updated_at), so a concurrent PATCH can neither be overwritten nor make this one
  // land on a version that is no longer current. A second new version N+1 fails the UNIQUE index.
  const unchanged = and(
    eq(endpoints.id, endpoint.id),
    eq(endpoints.currentVersion, endpoint.currentVersion),
    sql`${endpoints.updatedAt} IS ${endpoint.updatedAt}`,
  );
  const stillUnchanged = exists(
    db
      .select({ one: sql`1` })
      .from(endpoints)
      .where(unchanged),
  );
  const writeVersion = created
    ? db.insert(endpointVersions).select(sql`SELECT ${rowValues(next)} WHERE ${stillUnchanged}`)
    : db
        .update(endpointVersions)
        .set(versionFields)
        .where(and(eq(endpointVersions.id, next.id), stillUnchanged));
  let changed: number;
  try {
    const [, updated] = await db.batch([writeVersion, db.update(endpoints).set(endpointFields).where(unchanged)]);
    changed = updated.meta.changes;
  } catch (error) {
    // UNIQUE: another request created the same version number; FOREIGN KEY: the endpoint was deleted.
    if (/UNIQUE|FOREIGN KEY/i.test(String(error))) throw concurrentChange();
    throw error;
  }
  if (changed === 0) throw concurrentChange();

  if (materialize) await enableMaterialization(env, updatedEndpoint, next, next.syncFrequency, project);
  else if (base.isMaterialized) await disableMaterialization(env, updatedEndpoint, base.version);
  return { endpoint: updatedEndpoint, version: next, targeted: target !== undefined };
}

/** A version row as an INSERT ... SELECT list, in the table's column order, encoded as drizzle encodes values. */
function rowValues(row: VersionRow): SQL {
  const columns = Object.entries(getTableColumns(endpointVersions)) as [
    keyof VersionRow,
    (typeof endpointVersions)["_"]["columns"][keyof VersionRow],
  ][];
  return sql.join(
    columns.map(([key, column]) => sql.param(row[key], column)),
    sql`, `,
  );
}

const concurrentChange = () =>
  conflict(
    "The endpoint was changed by another request while this update was applied; nothing was written. Retry with its current state.",
  );

/** Every materialization (the Durable Object's storage) goes first, then the rows. */
export async function deleteEndpoint(env: Env, db: Db, projectId: number, name: string) {
  const endpoint = await getEndpoint(db, projectId, name);
  await materializerFor(env, endpoint.id).destroy();
  await db.batch([
    db.delete(endpointVersions).where(eq(endpointVersions.endpointId, endpoint.id)),
    db.delete(endpoints).where(eq(endpoints.id, endpoint.id)),
  ]);
}
