import type { Db } from "../db/client";
import type { Env } from "../env";
import { sha256Hex } from "../lib/crypto";
import { sortedJson } from "../lib/json";
import { getProject, getProjectByToken, isWellFormedProjectToken, type Project } from "../projects/service";
import { buildDefinitions, type DefinitionsPayload } from "./definitions";

/**
 * Local-evaluation payloads in KV, per project token and cohort variant, each with its ETag
 * (`W/"<16 hex of SHA-256 over the sorted-key JSON>"`, as PostHog's hypercache). Every flag or
 * cohort write calls `refreshFlagDefinitions` before its response; a KV miss rebuilds from D1 and
 * writes back. A one-second in-isolate layer in front of KV lets hot SDK routes (/flags, polls
 * answered 304) skip the KV read; KV itself is only eventually consistent across locations.
 */
export type Variant = "cohorts" | "plain";

export interface CachedDefinitions {
  projectId: number;
  etag: string;
  body: string;
  /** Static cohorts of the project (their members are in D1, not in the payload). */
  staticCohorts: number[];
  /** The project's time zone (date filters are read in it). */
  timezone: string;
  /** The parsed payload, made on first use and kept with the entry. */
  parsed?: DefinitionsPayload;
}

interface Metadata {
  projectId: number;
  etag: string;
  staticCohorts: number[];
  timezone: string;
}

const MEMORY_TTL_MS = 1000;
const memory = new Map<string, { entry: CachedDefinitions; at: number }>();

const kvKey = (token: string, variant: Variant) => `flagdefs:v1:${token}:${variant}`;

async function entryFor(
  project: Project,
  payload: DefinitionsPayload,
  staticCohorts: number[],
): Promise<CachedDefinitions> {
  const body = sortedJson(payload);
  const etag = `W/"${(await sha256Hex(body)).slice(0, 16)}"`;
  return { projectId: project.id, etag, body, staticCohorts, timezone: project.timezone, parsed: payload };
}

/**
 * KV accepts about one write per second to a key; a burst of flag writes can be refused (429).
 * Retry after that second so the cache is still rewritten before the write's response returns.
 * Entries expire, so one that could not be rewritten heals from D1 within the TTL.
 */
const KV_TTL_SECONDS = 60 * 60;

async function putWithRetry(
  kv: KVNamespace,
  key: string,
  body: string,
  metadata: Metadata,
  attempts = 3,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await kv.put(key, body, { metadata, expirationTtl: KV_TTL_SECONDS });
    } catch (err) {
      if (attempt >= attempts) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1100));
    }
  }
}

async function build(db: Db, project: Project): Promise<Record<Variant, CachedDefinitions>> {
  const built = await buildDefinitions(db, project.id);
  return {
    cohorts: await entryFor(project, built.withCohorts, built.staticCohorts),
    plain: await entryFor(project, built.withoutCohorts, built.staticCohorts),
  };
}

async function write(env: Env, project: Project, entries: Record<Variant, CachedDefinitions>): Promise<void> {
  const now = Date.now();
  await Promise.all(
    (Object.keys(entries) as Variant[]).map((variant) => {
      const e = entries[variant];
      memory.set(kvKey(project.apiToken, variant), { entry: e, at: now });
      const metadata: Metadata = {
        projectId: e.projectId,
        etag: e.etag,
        staticCohorts: e.staticCohorts,
        timezone: e.timezone,
      };
      return putWithRetry(env.FLAGS_KV, kvKey(project.apiToken, variant), e.body, metadata);
    }),
  );
}

async function rebuild(env: Env, db: Db, project: Project): Promise<Record<Variant, CachedDefinitions>> {
  const entries = await build(db, project);
  await write(env, project, entries);
  return entries;
}

const sameEntries = (a: Record<Variant, CachedDefinitions>, b: Record<Variant, CachedDefinitions>) =>
  a.cohorts.etag === b.cohorts.etag && a.plain.etag === b.plain.etag && a.plain.timezone === b.plain.timezone;

/** Rounds of "write, then rebuild to check" before a refresh gives up and evicts instead. */
const CONVERGENCE_ROUNDS = 3;

/**
 * Rewrites both cached variants of a project's payload from D1. Call after every flag or cohort write.
 *
 * Two writes may rebuild at once, and a refused put lands a second later, so an older snapshot can
 * overwrite a newer one. Each refresh therefore rebuilds again after writing and rewrites until the
 * two agree: the check sees every write committed before it, and the last refresh to check leaves
 * the newest payload. The caller's write is already committed, so a failed refresh does not fail the
 * request: the entries are evicted (readers then rebuild from D1), and the TTL bounds what remains.
 */
export async function refreshFlagDefinitions(env: Env, db: Db, projectId: number): Promise<void> {
  let project = await getProject(db, projectId);
  if (!project) return;
  try {
    let written = await rebuild(env, db, project);
    for (let round = 1; round <= CONVERGENCE_ROUNDS; round++) {
      project = (await getProject(db, projectId)) ?? project;
      const fresh = await build(db, project);
      if (sameEntries(fresh, written)) return;
      await write(env, project, fresh);
      written = fresh;
    }
    throw new Error("flag definitions kept changing while being cached");
  } catch (err) {
    console.error(`refreshing flag definitions of project ${projectId} failed; evicting`, err);
    await evict(env, project.apiToken);
  }
}

async function evict(env: Env, token: string): Promise<void> {
  for (const variant of ["cohorts", "plain"] as Variant[]) {
    memory.delete(kvKey(token, variant));
    await env.FLAGS_KV.delete(kvKey(token, variant)).catch((err) =>
      console.error("evicting flag definitions failed", err),
    );
  }
}

/** The cached payload for a project token, rebuilt on a KV miss; undefined for an unknown token. */
export async function readDefinitions(
  env: Env,
  db: Db,
  token: string,
  variant: Variant,
): Promise<CachedDefinitions | undefined> {
  if (!isWellFormedProjectToken(token)) return undefined;
  const key = kvKey(token, variant);
  const hot = memory.get(key);
  if (hot && Date.now() - hot.at < MEMORY_TTL_MS) return hot.entry;
  const stored = await env.FLAGS_KV.getWithMetadata<Metadata>(key, "text");
  if (stored.value !== null && stored.metadata) {
    const entry: CachedDefinitions = { ...stored.metadata, body: stored.value };
    if (hot?.entry.etag === entry.etag && hot.entry.parsed) entry.parsed = hot.entry.parsed;
    memory.set(key, { entry, at: Date.now() });
    return entry;
  }
  const project = await getProjectByToken(db, token);
  if (!project) return undefined;
  return (await rebuild(env, db, project))[variant];
}

/** The parsed payload of an entry (parsed once per entry). */
export function payloadOf(entry: CachedDefinitions): DefinitionsPayload {
  entry.parsed ??= JSON.parse(entry.body) as DefinitionsPayload;
  return entry.parsed;
}
