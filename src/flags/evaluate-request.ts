import { staticCohortsContaining } from "../shared/cohorts/reads";
import type { Db } from "../db/client";
import type { Env } from "../env";
import { getGroupProperties } from "../groups/service";
import { chunked } from "../lib/d1";
import { isObject } from "../lib/json";
import { findPersonByDistinctId } from "../persons/lookup";
import {
  compiledOf,
  needsStoredGroup,
  needsStoredPerson,
  runtimeRestrictionOf,
  type CompiledDefinitions,
} from "./compiled";
import { payloadOf, readDefinitions } from "./definitions-cache";
import { FlagEvaluationError, unavailable, withFailedKeys } from "./evaluation/errors";
import { evaluateFlags } from "./evaluation/matcher";
import type { FlagDefinition, FlagResult } from "./evaluation/types";
import { backfillInitialProperties } from "./initial-properties";
import { hashKeyOverrides } from "./overrides";
import { touchLastCalled } from "./service";

/** What an evaluation request carries (the /flags body, or a management route's parameters). */
export interface EvaluationRequest {
  distinctId: string;
  groups?: Record<string, unknown>;
  personProperties?: Record<string, unknown>;
  groupProperties?: Record<string, Record<string, unknown>>;
  anonDistinctId?: string;
  deviceId?: string;
  flagKeys?: string[];
  /**
   * The caller's runtime (flags restricted to another runtime are skipped); `undetermined` gets
   * only unrestricted flags; absent (management routes) filters nothing.
   */
  runtime?: "client" | "server" | "all" | "undetermined";
  /** Evaluation contexts the caller names: flags with evaluation tags are evaluated only for one of theirs. */
  contexts?: string[];
}

export interface Evaluation {
  results: Record<string, FlagResult>;
  /** Every flag of the payload (inactive ones included), for callers that report them. */
  flags: FlagDefinition[];
}

/**
 * Group properties for the group types the request names: stored ones overlaid by the request's.
 * The D1 read is skipped when the request already sends every property the flags use. A failed
 * read fails only the flags that read that group type's properties (see withFailedKeys).
 */
async function groupPropertiesFor(db: Db, projectId: number, compiled: CompiledDefinitions, req: EvaluationRequest) {
  const out: Record<string, Record<string, unknown>> = {};
  const failed = new Set<string>();
  await Promise.all(
    Object.entries(req.groups ?? {}).map(async ([name, key]) => {
      const sent = isObject(req.groupProperties?.[name]) ? req.groupProperties![name] : {};
      const index = compiled.groupIndexByName.get(name);
      const readable = index !== undefined && (typeof key === "string" || typeof key === "number");
      let stored: Record<string, unknown> | undefined;
      try {
        stored =
          readable && needsStoredGroup(compiled, index, sent)
            ? await getGroupProperties(db, projectId, index, String(key))
            : undefined;
      } catch {
        failed.add(name);
      }
      out[name] = { ...(stored ?? {}), ...sent };
    }),
  );
  return withFailedKeys(out, failed, "database_error");
}

/** Static cohorts among `ids` that list the person. */
async function staticMembershipOf(db: Db, personId: number, ids: number[]): Promise<Set<number>> {
  const out = new Set<number>();
  for (const chunk of chunked(ids)) for (const id of await staticCohortsContaining(db, personId, chunk)) out.add(id);
  return out;
}

/**
 * The flags to report: those asked for, minus those restricted to another runtime, minus tagged
 * flags none of whose evaluation tags the request names as a context (PostHog's rule: a request
 * naming no context gets every flag; an untagged flag is always evaluated).
 */
function selection(compiled: CompiledDefinitions, req: EvaluationRequest): Set<string> | undefined {
  const flags = compiled.payload.flags;
  // Without restricted flags, runtime and contexts select nothing away: skip building the set.
  const restricting = compiled.restrictsCallers;
  const runtime = req.runtime === "all" || !restricting ? undefined : req.runtime;
  const contexts = req.contexts?.length && restricting ? new Set(req.contexts) : undefined;
  if (!req.flagKeys?.length && !runtime && !contexts) return undefined;
  const asked = req.flagKeys?.length ? new Set(req.flagKeys) : undefined;
  return new Set(
    flags
      .filter((f) => !asked || asked.has(f.key))
      .filter((f) => {
        const restriction = runtimeRestrictionOf(f);
        return !runtime || !restriction || restriction === runtime;
      })
      .filter((f) => !contexts || !f.evaluation_tags?.length || f.evaluation_tags.some((tag) => contexts.has(tag)))
      .map((f) => f.key),
  );
}

const NO_COHORTS: ReadonlySet<number> = new Set();

/** Static cohort membership that could not be read: asking about one of `ids` fails the asking flag. */
function failedMembership(ids: number[]): ReadonlySet<number> {
  const failing = new Set(ids);
  return {
    has: (id: number) => {
      if (failing.has(id)) throw new FlagEvaluationError("database_error");
      return false;
    },
  } as ReadonlySet<number>;
}

interface StoredPersonData {
  /** Stored properties ({} for an unknown person); undefined when the read failed. */
  properties?: Record<string, unknown>;
  failed: boolean;
  staticMembership: ReadonlySet<number>;
  overrides: Record<string, string>;
}

/**
 * The stored person, its static cohorts and its continuity hash keys. A failed read does not fail
 * the request: it fails the flags that need what could not be read (flag-eval.md §5 error records).
 */
async function storedPersonData(
  db: Db,
  projectId: number,
  staticCohorts: number[],
  continuity: string[],
  req: EvaluationRequest,
): Promise<StoredPersonData> {
  let person: Awaited<ReturnType<typeof findPersonByDistinctId>>;
  try {
    person = await findPersonByDistinctId(db, projectId, req.distinctId);
  } catch {
    return {
      failed: true,
      staticMembership: failedMembership(staticCohorts),
      overrides: unavailable({}, "database_error"),
    };
  }
  if (!person) return { properties: {}, failed: false, staticMembership: NO_COHORTS, overrides: {} };
  const [staticMembership, overrides] = await Promise.all([
    staticMembershipOf(db, person.id, staticCohorts).catch(() => failedMembership(staticCohorts)),
    hashKeyOverrides(db, projectId, person.id, continuity, req.anonDistinctId).catch(() =>
      unavailable<Record<string, string>>({}, "hash_key_override_error"),
    ),
  ]);
  return { properties: person.properties ?? {}, failed: false, staticMembership, overrides };
}

const lastTouched = new Map<number, number>();
const TOUCH_EVERY_MS = 60_000;

/**
 * Evaluates a project's flags for one request with the stored person and groups, and marks the
 * evaluated flags as called (throttled per isolate, after the response via `waitUntil`).
 * Returns undefined for an unknown project token.
 */
export async function evaluateForRequest(
  env: Env,
  db: Db,
  token: string,
  req: EvaluationRequest,
  waitUntil?: (p: Promise<unknown>) => void,
): Promise<(Evaluation & { projectId: number }) | undefined> {
  const cached = await readDefinitions(env, db, token, "cohorts");
  if (!cached) return undefined;
  const payload = payloadOf(cached);
  const compiled = compiledOf(payload);
  const projectId = cached.projectId;
  const only = selection(compiled, req);
  const sent = isObject(req.personProperties) ? req.personProperties : {};

  const stored = needsStoredPerson(compiled, sent)
    ? await storedPersonData(db, projectId, cached.staticCohorts, compiled.continuity, req)
    : undefined;
  const groupProperties =
    req.groups && Object.keys(req.groups).length ? await groupPropertiesFor(db, projectId, compiled, req) : {};

  let personProperties: Record<string, unknown> = { ...stored?.properties, distinct_id: req.distinctId, ...sent };
  // Like the server, only the stored-person path backfills `$initial_*` keys.
  if (stored?.properties) backfillInitialProperties(personProperties);
  const deviceId =
    req.deviceId || (typeof personProperties.$device_id === "string" ? personProperties.$device_id : undefined);
  // The person could not be read: flags that look at a property the request did not send fail.
  if (stored?.failed) personProperties = unavailable(personProperties, "database_error");
  const results = evaluateFlags(
    payload.flags,
    {
      distinctId: req.distinctId,
      personProperties,
      groups: req.groups ?? {},
      groupProperties,
      groupTypeMapping: payload.group_type_mapping,
      cohorts: {
        definitions: payload.cohorts,
        staticMembership: stored?.staticMembership ?? NO_COHORTS,
        timezone: cached.timezone,
      },
      hashKeyOverrides: stored?.overrides ?? {},
      anonDistinctId: req.anonDistinctId,
      deviceId,
      now: new Date(),
    },
    only,
    compiled.byKey,
  );

  const last = lastTouched.get(projectId) ?? 0;
  if (waitUntil && Date.now() - last > TOUCH_EVERY_MS && Object.keys(results).length) {
    lastTouched.set(projectId, Date.now());
    waitUntil(touchLastCalled(db, projectId, Object.keys(results)).catch(() => undefined));
  }
  return { results, flags: payload.flags, projectId };
}
