import type { Db } from "../db/client";
import type { Env } from "../env";
import { sha256Hex } from "../lib/crypto";
import { getProject, getProjectByToken, type Project } from "../projects/service";
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

/** JSON with object keys sorted at every level (the bytes the ETag is computed over). */
export function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v,
  );
}

async function entryFor(project: Project, payload: DefinitionsPayload, staticCohorts: number[]): Promise<CachedDefinitions> {
  const body = sortedJson(payload);
  const etag = `W/"${(await sha256Hex(body)).slice(0, 16)}"`;
  return { projectId: project.id, etag, body, staticCohorts, timezone: project.timezone, parsed: payload };
}

/**
 * KV accepts about one write per second to a key; a burst of flag writes can be refused (429).
 * Retry after that second so the cache is still rewritten before the write's response returns.
 */
async function putWithRetry(kv: KVNamespace, key: string, body: string, metadata: Metadata, attempts = 3): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await kv.put(key, body, { metadata });
    } catch (err) {
      if (attempt >= attempts) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1100));
    }
  }
}

async function rebuild(env: Env, db: Db, project: Project): Promise<Record<Variant, CachedDefinitions>> {
  const built = await buildDefinitions(db, project.id);
  const entries = {
    cohorts: await entryFor(project, built.withCohorts, built.staticCohorts),
    plain: await entryFor(project, built.withoutCohorts, built.staticCohorts),
  };
  const now = Date.now();
  await Promise.all(
    (Object.keys(entries) as Variant[]).map((variant) => {
      const e = entries[variant];
      memory.set(kvKey(project.apiToken, variant), { entry: e, at: now });
      const metadata: Metadata = { projectId: e.projectId, etag: e.etag, staticCohorts: e.staticCohorts, timezone: e.timezone };
      return putWithRetry(env.FLAGS_KV, kvKey(project.apiToken, variant), e.body, metadata);
    }),
  );
  return entries;
}

/** Rewrites both cached variants of a project's payload from D1. Call after every flag or cohort write. */
export async function refreshFlagDefinitions(env: Env, db: Db, projectId: number): Promise<void> {
  const project = await getProject(db, projectId);
  if (project) await rebuild(env, db, project);
}

/** The cached payload for a project token, rebuilt on a KV miss; undefined for an unknown token. */
export async function readDefinitions(env: Env, db: Db, token: string, variant: Variant): Promise<CachedDefinitions | undefined> {
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
