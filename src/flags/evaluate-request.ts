import { staticCohortsContaining } from "../cohorts/reads";
import type { Db } from "../db/client";
import type { Env } from "../env";
import { getGroupProperties } from "../groups/service";
import { findPersonByDistinctId } from "../persons/lookup";
import { payloadOf, readDefinitions } from "./definitions-cache";
import type { DefinitionsPayload } from "./definitions";
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
  /** The caller's runtime (`server` / `client`): flags restricted to the other runtime are skipped. */
  runtime?: string;
}

export interface Evaluation {
  results: Record<string, FlagResult>;
  /** Every flag of the payload (inactive ones included), for callers that report them. */
  flags: FlagDefinition[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Whether any flag needs stored person data: a person property the request did not send, a
 * cohort, enrollment, or experience continuity. Pure rollouts (and requests that send every
 * property used) skip the D1 person read entirely, as PostHog's server does.
 */
function needsStoredPerson(flags: FlagDefinition[], sent: Record<string, unknown>): boolean {
  for (const flag of flags) {
    if (!flag.active) continue;
    if (flag.ensure_experience_continuity || flag.filters.feature_enrollment || flag.filters.super_groups?.length) return true;
    for (const group of flag.filters.groups ?? []) {
      for (const p of group?.properties ?? []) {
        if (p.type === "cohort") return true;
        if ((p.type === "person" || p.type === undefined) && !(p.key in sent) && p.key !== "distinct_id") return true;
      }
    }
  }
  return false;
}

/** Whether an active flag filters on a property of group type `index` that the request did not send. */
function needsStoredGroup(flags: FlagDefinition[], index: number, sent: Record<string, unknown>): boolean {
  return flags.some(
    (flag) =>
      flag.active &&
      (flag.filters.groups ?? []).some((group) =>
        (group?.properties ?? []).some((p) => p.type === "group" && (p.group_type_index ?? flag.filters.aggregation_group_type_index) === index && !(p.key in sent)),
      ),
  );
}

/**
 * Group properties for the group types the request names: stored ones overlaid by the request's.
 * The D1 read is skipped when the request already sends every property the flags use.
 */
async function groupPropertiesFor(db: Db, projectId: number, payload: DefinitionsPayload, req: EvaluationRequest) {
  const out: Record<string, Record<string, unknown>> = {};
  const indexByName = new Map(Object.entries(payload.group_type_mapping).map(([i, name]) => [name, Number(i)]));
  await Promise.all(
    Object.entries(req.groups ?? {}).map(async ([name, key]) => {
      const sent = isObject(req.groupProperties?.[name]) ? req.groupProperties![name] : {};
      const index = indexByName.get(name);
      const readable = index !== undefined && (typeof key === "string" || typeof key === "number");
      const stored = readable && needsStoredGroup(payload.flags, index, sent) ? await getGroupProperties(db, projectId, index, String(key)) : undefined;
      out[name] = { ...(stored ?? {}), ...sent };
    }),
  );
  return out;
}

/** Static cohorts among `ids` that list the person (chunked under D1's parameter limit). */
async function staticMembershipOf(db: Db, personId: number, ids: number[]): Promise<Set<number>> {
  const out = new Set<number>();
  for (let i = 0; i < ids.length; i += 90) for (const id of await staticCohortsContaining(db, personId, ids.slice(i, i + 90))) out.add(id);
  return out;
}

/** The flags to report: those asked for, minus those restricted to another runtime. */
function selection(flags: FlagDefinition[], req: EvaluationRequest): Set<string> | undefined {
  const runtime = req.runtime === "server" || req.runtime === "client" ? req.runtime : undefined;
  if (!req.flagKeys?.length && !runtime) return undefined;
  const asked = req.flagKeys?.length ? new Set(req.flagKeys) : undefined;
  return new Set(
    flags
      .filter((f) => !asked || asked.has(f.key))
      .filter((f) => {
        const own = (f as { evaluation_runtime?: string }).evaluation_runtime;
        return !runtime || !own || own === "all" || own === runtime;
      })
      .map((f) => f.key),
  );
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
  const projectId = cached.projectId;
  const only = selection(payload.flags, req);
  const sent = isObject(req.personProperties) ? req.personProperties : {};

  let stored: Record<string, unknown> | undefined;
  let staticMembership: ReadonlySet<number> = new Set();
  let overrides: Record<string, string> = {};
  if (needsStoredPerson(payload.flags, sent)) {
    const person = await findPersonByDistinctId(db, projectId, req.distinctId);
    stored = {};
    if (person) {
      stored = person.properties ?? {};
      const continuity = payload.flags.filter((f) => f.active && f.ensure_experience_continuity).map((f) => f.key);
      [staticMembership, overrides] = await Promise.all([
        staticMembershipOf(db, person.id, cached.staticCohorts),
        hashKeyOverrides(db, projectId, person.id, continuity, req.anonDistinctId),
      ]);
    }
  }
  const groupProperties = req.groups && Object.keys(req.groups).length ? await groupPropertiesFor(db, projectId, payload, req) : {};

  const personProperties: Record<string, unknown> = { ...stored, distinct_id: req.distinctId, ...sent };
  // Like the server, only the stored-person path backfills `$initial_*` keys.
  if (stored) backfillInitialProperties(personProperties);
  const deviceId = req.deviceId || (typeof personProperties.$device_id === "string" ? personProperties.$device_id : undefined);
  const results = evaluateFlags(
    payload.flags,
    {
      distinctId: req.distinctId,
      personProperties,
      groups: req.groups ?? {},
      groupProperties,
      groupTypeMapping: payload.group_type_mapping,
      cohorts: { definitions: payload.cohorts, staticMembership, timezone: cached.timezone },
      hashKeyOverrides: overrides,
      anonDistinctId: req.anonDistinctId,
      deviceId,
      now: new Date(),
    },
    only,
  );

  const last = lastTouched.get(projectId) ?? 0;
  if (waitUntil && Date.now() - last > TOUCH_EVERY_MS && Object.keys(results).length) {
    lastTouched.set(projectId, Date.now());
    waitUntil(touchLastCalled(db, projectId, Object.keys(results)).catch(() => undefined));
  }
  return { results, flags: payload.flags, projectId };
}
