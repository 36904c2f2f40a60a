import { beforeAll, describe, expect, it } from "vitest";
import { call, createFlag, createProject, envelope, identifyGroup } from "../helpers";
import { capture, personsPath } from "../persons/helpers";
import {
  type JsonPath,
  type Kind,
  type Mutation,
  PATH_MUTATIONS,
  RAW_QUERY_MUTATIONS,
  type Schema,
  SEARCH64,
  childSchema,
  getAt,
  jsonPaths,
  KEY_MUTATIONS,
  kindOfSchema,
  kindOfValue,
  hash,
  mulberry32,
  mutationsFor,
  pathLabel,
  queryString,
  resolve,
  setAt,
  toJson,
} from "./mutations";

/**
 * A deterministic fuzz of every operation of the published OpenAPI document (`GET /api/schema/`):
 * each path parameter, query parameter and body field (walked from a valid body, following the
 * schema into components) gets hostile values one at a time: 100 KB strings, 200-level nesting,
 * wrong types, huge numbers, odd unicode, SQL/LIKE/GLOB/regex metacharacters. Every answer must be
 * below 500, every 4xx PostHog's error envelope (the SDK routes too: capture, /flags, /decide and the
 * remote config answer their errors in it, as test/capture and test/sdk expect), and the data seeded
 * before the fuzz must read the same afterwards. Failures are collected and asserted once, grouped
 * into families (operation, where, mutation, status), so one run lists everything that breaks.
 *
 * Beyond that: every valid request (one per valid body) must be accepted, no answer may show a
 * stack frame or a database error, and a JSON answer must parse. (Nothing is asserted on time: a
 * failure's report says how long it took when that was over SLOW_MS, which helps find the cause.)
 * Object members get hostile names too, JSON-valued query parameters (filters, events, groups) are
 * mutated one leaf at a time like bodies, and every read runs once before the fuzz and once after
 * it, so that hostile data a write stored and a later read trips over shows as such.
 *
 * No operation is skipped. `/api/schema/`, `/api/docs` and `/_health` take no input and get only
 * their valid request and an undeclared query parameter.
 *
 * Writes never address the seeded ("guard") objects: path ids are fuzz targets; the operations that
 * delete (DELETE, bulk_delete) get a victim, used until an answer other than a 4xx refusal may have
 * used it up. A write that soft-deletes the target flag or cohort gets a new target, one that
 * renames or deactivates the target endpoint puts it back; other accepted changes stay, for the
 * later reads. The mutation catalog holds no positive small integer, which could name a real row.
 *
 * Runs in about a minute on D1 (9,400 requests); the ClickHouse suite runs it too
 * (vitest.clickhouse.config.ts).
 */

const SEED = 0xed6e40;
/** Mutations per field (its kind's core ones, then draws: mutations.ts). */
const PER_FIELD = 8;
/** Fewer for the flag and cohort writes, the costliest requests (tens of ms each when accepted). */
const PER_FIELD_COSTLY = 6;
/** What no answer may show: a stack frame, a database or driver error. */
const LEAK = /\bat [^\s]+ \([^)]*\.[jt]s:\d+|D1_ERROR|SQLITE_|DrizzleQueryError|Failed query:/;
/** A failure's report notes its time when it took longer than this (never asserted on). */
const SLOW_MS = 5_000;

type Project = { id: number; name: string; api_token: string; timezone: string };
type Operation = {
  method: string;
  path: string;
  auth: string;
  parameters: { in: string; name: string; schema?: Schema }[];
  bodySchema?: Schema;
};
type Victim = { path: Record<string, string>; uuid?: string; distinctId?: string };
/** Projects that receive what a create operation makes (a new one every few creations). */
type Sink = { project: Project | undefined; created: number; all: Project[] };
type Spec = {
  /** A valid query (values that are not strings go out as JSON). */
  query?: Record<string, unknown>;
  /** Valid bodies (called per request: names and keys must stay unique). */
  bodies?: ((victim?: Victim) => unknown)[];
  /** A new object to address, for operations that delete what they address (reused after a 4xx). */
  victim?: () => Promise<Victim>;
  /** After a 2xx, puts the target back when the write left it unusable (called with the response). */
  restore?: (res: Response) => Promise<void>;
  /** Mutations per field, when not PER_FIELD. */
  perField?: number;
  /** Same handler as another operation fuzzed in full: the core mutations only, no member names. */
  light?: boolean;
  /** The Bearer credential, when not the root key (Capture V1 takes the project token). */
  key?: () => string;
};
type Response = Awaited<ReturnType<typeof call>>;
type Failure = { op: string; where: string; mutation: string; status: number; slow?: string; body: string };

let doc: Schema;
const operations: Operation[] = [];
let fuzz: Project;
let guard: Project;
let targetPerson: { id: number; uuid: string };
let splitPerson: { id: number; uuid: string };
let targetFlag: number;
let remoteFlag: number;
let targetCohort: number;
const TARGET_ENDPOINT = "fuzz_target";
const guards: Record<number, { flag: number; cohort: number }> = {};
let before: unknown;
let counter = 0;
const unique = () => ++counter;

const RECENT = () => new Date(Date.now() - 86_400_000).toISOString();
const TODAY = () => new Date().toISOString().slice(0, 10);
const STEPS = [
  { id: "fuzz_a", type: "events", order: 0, properties: [{ key: "$browser", value: "Chrome", operator: "exact" }] },
  { id: "fuzz_b", type: "events", order: 1 },
];
/** Property filters as the persons list, cohorts, flags and the analysis take them (each operator family once). */
const PROPERTIES = () => [
  { key: "plan", value: ["pro", "free"], operator: "exact", type: "person" },
  { key: "email", value: "^t.*@fuzz", operator: "regex", type: "person" },
  { key: "name", value: "arg", operator: "icontains", type: "person" },
];
const flagFilters = () => ({
  groups: [{ properties: PROPERTIES(), rollout_percentage: 50, variant: null }],
  multivariate: {
    variants: [
      { key: "a", name: "A", rollout_percentage: 50 },
      { key: "b", name: "B", rollout_percentage: 50 },
    ],
  },
  payloads: { a: '{"x": 1}' },
  aggregation_group_type_index: null,
});
const cohortFilters = () => ({
  properties: {
    type: "OR",
    values: [
      { type: "AND", values: PROPERTIES() },
      { type: "AND", values: [{ key: "plan", value: "pro", type: "person", negation: true }] },
    ],
  },
});
const hogql = () => ({
  kind: "HogQLQuery",
  query: "select event, count() as c from events where event = {variables.ev} group by event",
  variables: { v1: { code_name: "ev", value: "fuzz_a" } },
});
const endpointBody = (name: string) => ({
  name,
  query: hogql(),
  description: "fuzz endpoint",
  is_active: true,
  cache_age_seconds: 600,
  derived_from_insight: null,
});

async function ok(res: Response, what: string) {
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${res.text.slice(0, 300)}`);
  return res.json;
}
const flagsPath = (p: number, rest = "") => `/api/projects/${p}/feature_flags/${rest}`;
const cohortsPath = (p: number, rest = "") => `/api/projects/${p}/cohorts/${rest}`;
const endpointsPath = (p: number, rest = "") => `/api/environments/${p}/endpoints/${rest}`;

async function personOf(projectId: number, distinctId: string) {
  const list = await ok(
    await call(`${personsPath(projectId)}?distinct_id=${encodeURIComponent(distinctId)}`),
    `person ${distinctId}`,
  );
  return list.results[0] as { id: number; uuid: string };
}

/** The guarded data of a project: persons captured through /batch/, a flag, a cohort, an endpoint. */
async function seedGuard(project: Project) {
  await capture(project.api_token, [
    {
      event: "guard_evt",
      distinct_id: "guard-ann",
      properties: { $set: { plan: "guard-plan", email: "ann@guard.test", name: "Ann" } },
    },
    { event: "guard_evt", distinct_id: "guard-ben", properties: { $set: { plan: "guard-plan-b" } } },
    { event: "$identify", distinct_id: "guard-ben", properties: { $anon_distinct_id: "guard-ben-anon" } },
  ]);
  const flag = await createFlag(project.id, {
    key: "guard-flag",
    name: "Guard",
    filters: {
      groups: [
        {
          properties: [{ key: "plan", value: ["guard-plan"], operator: "exact", type: "person" }],
          rollout_percentage: 100,
        },
      ],
    },
  });
  const cohort = await ok(
    await call(cohortsPath(project.id), {
      method: "POST",
      body: {
        name: "Guard cohort",
        filters: {
          properties: {
            type: "OR",
            values: [{ type: "AND", values: [{ key: "plan", value: "guard-plan", type: "person" }] }],
          },
        },
      },
    }),
    "guard cohort",
  );
  await ok(
    await call(endpointsPath(project.id), {
      method: "POST",
      body: {
        name: "guard_count",
        query: { kind: "HogQLQuery", query: "select count() as c from events where event = 'guard_evt'" },
      },
    }),
    "guard endpoint",
  );
  guards[project.id] = { flag: flag.id, cohort: cohort.id };
}

const omit = (value: any, keys: string[]) =>
  value && typeof value === "object"
    ? Object.fromEntries(Object.entries(value).filter(([k]) => !keys.includes(k)))
    : value;

/** Everything the guard reads back: compared before and after the fuzz. */
async function snapshot() {
  const out: Record<string, unknown> = {};
  const project = (await call(`/api/projects/${guard.id}/`)).json;
  out.guardProject = omit(project, ["updated_at"]);
  for (const p of [fuzz, guard]) {
    const g = guards[p.id];
    for (const distinctId of ["guard-ann", "guard-ben", "guard-ben-anon"]) {
      const list = (await call(`${personsPath(p.id)}?distinct_id=${distinctId}`)).json;
      const uuid = list.results?.[0]?.uuid;
      const person = (await call(personsPath(p.id, `${uuid}/`))).json;
      out[`${p.id} person ${distinctId}`] = { ...person, distinct_ids: [...(person.distinct_ids ?? [])].sort() };
    }
    out[`${p.id} flag`] = omit((await call(flagsPath(p.id, `${g.flag}/`))).json, ["last_called_at", "status"]);
    out[`${p.id} cohort`] = omit((await call(cohortsPath(p.id, `${g.cohort}/`))).json, ["last_calculation"]);
    out[`${p.id} cohort members`] = (await call(cohortsPath(p.id, `${g.cohort}/persons/`))).json.results?.map(
      (r: any) => [...r.distinct_ids].sort(),
    );
    out[`${p.id} endpoint`] = omit((await call(endpointsPath(p.id, "guard_count/"))).json, ["last_executed_at"]);
    out[`${p.id} endpoint run`] = (
      await call(endpointsPath(p.id, "guard_count/run/"), { method: "POST", body: { refresh: "force" } })
    ).json?.results;
    out[`${p.id} flags`] = (
      await call("/flags/?v=2", {
        method: "POST",
        key: null,
        body: { token: p.api_token, distinct_id: "guard-ann", flag_keys_to_evaluate: ["guard-flag"] },
      })
    ).json?.flags?.["guard-flag"]?.enabled;
  }
  return out;
}

/** The real value of a path parameter (fuzz targets, never guard objects). */
function realPathValue(op: Operation, name: string): string {
  if (name === "project_id") return String(fuzz.id);
  if (name === "token") return fuzz.api_token;
  if (name === "organization_id") return "@current";
  if (name === "name") return TARGET_ENDPOINT;
  if (op.path.endsWith("/remote_config")) return String(remoteFlag);
  if (op.path.includes("/feature_flags/")) return String(targetFlag);
  if (op.path.includes("/cohorts/")) return String(targetCohort);
  if (op.path.endsWith("/split")) return splitPerson.uuid;
  if (op.path.includes("/persons/")) return targetPerson.uuid;
  // Keys are deleted by their only operation with an id (victims); the 401 pass needs no real one.
  if (op.path.startsWith("/api/personal_api_keys/")) return "999999";
  throw new Error(`no real value for ${name} of ${op.path}`);
}

let victims = 0;
const victimOf = {
  flag: async (): Promise<Victim> => {
    const flag = await createFlag(fuzz.id, {
      key: `victim-${unique()}`,
      filters: { groups: [{ rollout_percentage: 100 }] },
    });
    victims++;
    return { path: { id: String(flag.id) } };
  },
  cohort: async (): Promise<Victim> => {
    const cohort = await ok(
      await call(cohortsPath(fuzz.id), { method: "POST", body: { name: "victim", filters: cohortFilters() } }),
      "victim cohort",
    );
    victims++;
    return { path: { id: String(cohort.id) } };
  },
  endpoint: async (): Promise<Victim> => {
    const name = `victim_${unique()}`;
    await ok(await call(endpointsPath(fuzz.id), { method: "POST", body: endpointBody(name) }), "victim endpoint");
    victims++;
    return { path: { name } };
  },
  key: async (): Promise<Victim> => {
    const key = await ok(
      await call("/api/personal_api_keys/", { method: "POST", body: { label: "victim", scopes: ["person:read"] } }),
      "victim key",
    );
    victims++;
    return { path: { id: String(key.id) } };
  },
  person: async (): Promise<Victim> => {
    const distinctId = `victim-${unique()}`;
    // Persons are written to D1 before /batch/ answers on both engines; not waiting for a ClickHouse
    // deployment's queue to deliver the event (the capture helper does) keeps victims cheap there.
    const batch = [{ event: "fuzz_a", distinct_id: distinctId, properties: { $set: { plan: "victim" } } }];
    await ok(await call("/batch/", { method: "POST", key: null, body: { api_key: fuzz.api_token, batch } }), "victim");
    const person = await personOf(fuzz.id, distinctId);
    victims++;
    return { path: { id: person.uuid }, uuid: person.uuid, distinctId };
  },
};

/** The fuzz's target flag and cohort (created again when a mutation soft-deletes them). */
async function newTargetFlag() {
  targetFlag = (await createFlag(fuzz.id, targetFlagBody())).id;
}
async function newTargetCohort() {
  const body = { method: "POST", body: targetCohortBody() };
  targetCohort = (await ok(await call(cohortsPath(fuzz.id), body), "target cohort")).id;
}

/**
 * After a 2xx write that soft-deleted the target (`deleted: true` is a valid body; a deleted flag or
 * cohort cannot be written again), a new target, so the next mutation meets a live one. Other
 * changes stay: hostile data that was accepted is what the later reads must survive.
 */
const replaceDeleted = (create: () => Promise<void>) => async (res: Response) => {
  if (res.json?.deleted === true) await create();
};

/**
 * Flags created by the fuzz go to sink projects, a new one every 10 creations: each flag write
 * rebuilds its project's definitions from every flag, so a project holding hundreds of flags with
 * 100 KB fields makes every later write slow (seconds), while what is tested is the same.
 */
const flagSink: Sink = { project: undefined, created: 0, all: [] };
async function sinkVictim(sink: Sink): Promise<Victim> {
  if (!sink.project || sink.created >= 10) {
    sink.project = await createProject(`fuzz sink ${sink.all.length + 1}`);
    sink.all.push(sink.project);
    sink.created = 0;
  }
  return { path: { project_id: String(sink.project.id) } };
}

const flagBase = () => ({
  key: `fuzz-flag-${unique()}`,
  name: "Fuzz flag",
  filters: flagFilters(),
  active: true,
  tags: ["fuzz", "web"],
  evaluation_tags: ["web"],
  ensure_experience_continuity: false,
  creation_context: "feature_flags",
  evaluation_runtime: "all",
  bucketing_identifier: "distinct_id",
});
const targetFlagBody = () => ({ ...flagBase(), key: "fuzz-target-flag", deleted: false });
const targetCohortBody = () => ({
  name: "Fuzz target",
  description: "target",
  filters: cohortFilters(),
  deleted: false,
});
const projectBody = () => ({
  name: "fuzz target",
  timezone: "Europe/Paris",
  test_account_filters: [{ key: "email", value: "@example.com", operator: "not_icontains", type: "person" }],
});
const funnelQuery = () => ({
  events: STEPS,
  date_from: "-30d",
  date_to: TODAY(),
  properties: PROPERTIES().slice(0, 1),
  limit: "10",
  offset: "0",
  funnel_window_interval: "14",
  funnel_window_interval_unit: "day",
  funnel_order_type: "ordered",
  breakdown: "plan",
  breakdown_type: "person",
  breakdown_attribution_type: "first_touch",
  funnel_step_breakdown: "pro",
  funnel_step: "1",
});
const correlationQuery = () => ({
  ...omit(funnelQuery(), [
    "breakdown",
    "breakdown_type",
    "breakdown_attribution_type",
    "funnel_step_breakdown",
    "funnel_step",
  ]),
  funnel_correlation_person_entity: { id: "fuzz_c", type: "events" },
  funnel_correlation_person_converted: "true",
  funnel_correlation_person_limit: "10",
  funnel_correlation_person_offset: "0",
  include_correlation: "true",
  funnel_correlation_type: "events",
  funnel_correlation_exclude_event_names: ["fuzz_x"],
});
const analysisBody = (extra: Record<string, unknown> = {}) => ({
  events: STEPS,
  date_from: "-30d",
  funnel_step: 1,
  properties: PROPERTIES().slice(0, 1),
  ...extra,
});
const flagsBody = () => ({
  token: fuzz.api_token,
  distinct_id: "fuzz-target",
  groups: { company: "acme" },
  person_properties: { plan: "pro" },
  group_properties: { company: { size: 5 } },
  flag_keys_to_evaluate: ["fuzz-target-flag"],
  $anon_distinct_id: "fuzz-target-anon",
  $device_id: "device-1",
  evaluation_contexts: ["web"],
  evaluation_runtime: "all",
});
const captureBody = () => ({
  api_key: fuzz.api_token,
  sent_at: new Date().toISOString(),
  batch: [
    {
      event: "fuzz_capture",
      distinct_id: "fuzz-capture",
      timestamp: RECENT(),
      properties: {
        $set: { plan: "capture" },
        $set_once: { first: "x" },
        $current_url: "https://x.test/",
        $lib: "web",
      },
    },
  ],
});

const captureV1Body = () => ({
  created_at: new Date().toISOString(),
  batch: [
    {
      event: "fuzz_capture_v1",
      uuid: crypto.randomUUID(),
      distinct_id: "fuzz-capture",
      timestamp: RECENT(),
      session_id: "fuzz-session",
      options: { process_person_profile: true, disable_skew_correction: false },
      properties: { $set: { plan: "capture" }, $current_url: "https://x.test/" },
    },
  ],
});

/** Valid queries and bodies, victims and restores, per operation (`METHOD /path` as the document spells it). */
function specs(): Record<string, Spec> {
  const lifecycle = {
    events: STEPS.slice(0, 1),
    date_from: "-30d",
    target_date: TODAY(),
    lifecycle_type: "new",
    interval: "day",
  };
  const stickiness = {
    events: STEPS.slice(0, 1),
    date_from: "-7d",
    entity_id: "fuzz_a",
    entity_type: "events",
    stickiness_days: "1",
    interval: "day",
  };
  const list = { limit: 10, offset: 0 };
  const sdk = { v: "2", config: "true" };
  const endpointRestore = async (res: Response) => {
    const name = typeof res.json?.name === "string" ? res.json.name : TARGET_ENDPOINT;
    if (name === TARGET_ENDPOINT && res.json?.is_active !== false) return;
    const back = await call(endpointsPath(fuzz.id, `${encodeURIComponent(name)}/`), {
      method: "PATCH",
      body: endpointBody(TARGET_ENDPOINT),
    });
    await ok(back, `restore endpoint ${name}`);
  };
  return {
    "GET /api/projects": { query: list },
    "POST /api/projects": { bodies: [projectBody] },
    "PATCH /api/projects/{project_id}": { bodies: [projectBody] },
    "GET /api/environments/{project_id}/persons/funnel": { query: funnelQuery() },
    "POST /api/environments/{project_id}/persons/funnel": { bodies: [() => analysisBody()] },
    "GET /api/environments/{project_id}/persons/funnel/correlation": { query: correlationQuery() },
    "POST /api/environments/{project_id}/persons/funnel/correlation": {
      bodies: [
        () =>
          analysisBody({
            funnel_step: undefined,
            funnel_correlation_person_entity: { id: "fuzz_c", type: "events" },
            include_correlation: true,
            funnel_correlation_type: "properties",
            funnel_correlation_names: ["plan", "$all"],
            funnel_correlation_exclude_names: ["email"],
          }),
      ],
    },
    "GET /api/environments/{project_id}/persons/lifecycle": { query: lifecycle },
    "GET /api/environments/{project_id}/persons/stickiness": { query: stickiness },
    "GET /api/projects/{project_id}/feature_flags/evaluation_reasons": {
      query: { distinct_id: "fuzz-target", groups: { company: "acme" } },
    },
    "GET /api/projects/{project_id}/feature_flags/local_evaluation": { query: { send_cohorts: "true" } },
    "POST /api/projects/{project_id}/feature_flags/user_blast_radius": {
      bodies: [() => ({ condition: { properties: PROPERTIES(), rollout_percentage: 50 }, group_type_index: null })],
    },
    "GET /api/projects/{project_id}/feature_flags/my_flags": {
      query: { distinct_id: "fuzz-target", groups: { company: "acme" } },
    },
    "GET /api/projects/{project_id}/feature_flags/activity": { query: { limit: 10, page: 1 } },
    "GET /api/projects/{project_id}/feature_flags/{id}/activity": { query: { limit: 10, page: 1 } },
    "POST /api/projects/{project_id}/feature_flags/bulk_keys": {
      bodies: [() => ({ ids: [targetFlag, String(targetFlag)] })],
    },
    "GET /api/projects/{project_id}/feature_flags": {
      query: {
        ...list,
        search: "fuzz",
        active: "true",
        type: "multivariant",
        tags: ["fuzz", "web"],
        evaluation_runtime: "all",
        order: "-created_at",
      },
    },
    "POST /api/projects/{project_id}/feature_flags": {
      bodies: [flagBase],
      victim: () => sinkVictim(flagSink),
      restore: async () => void flagSink.created++,
      perField: PER_FIELD_COSTLY,
    },
    "PATCH /api/projects/{project_id}/feature_flags/{id}": {
      bodies: [targetFlagBody],
      restore: replaceDeleted(newTargetFlag),
      perField: PER_FIELD_COSTLY,
    },
    "PUT /api/projects/{project_id}/feature_flags/{id}": {
      bodies: [targetFlagBody],
      restore: replaceDeleted(newTargetFlag),
      light: true,
    },
    "DELETE /api/projects/{project_id}/feature_flags/{id}": { victim: victimOf.flag },
    "GET /api/environments/{project_id}/endpoints": { query: { is_active: "true", created_by: "1", ...list } },
    "POST /api/environments/{project_id}/endpoints": { bodies: [() => endpointBody(`fuzz_${unique()}`)] },
    "GET /api/environments/{project_id}/endpoints/{name}": { query: { version: "1" } },
    "PATCH /api/environments/{project_id}/endpoints/{name}": {
      bodies: [() => endpointBody(TARGET_ENDPOINT)],
      restore: endpointRestore,
    },
    "PUT /api/environments/{project_id}/endpoints/{name}": {
      bodies: [() => endpointBody(TARGET_ENDPOINT)],
      restore: endpointRestore,
      light: true,
    },
    "DELETE /api/environments/{project_id}/endpoints/{name}": { victim: victimOf.endpoint },
    "GET /api/environments/{project_id}/endpoints/{name}/versions": { query: list },
    "GET /api/environments/{project_id}/endpoints/{name}/run": {
      query: { version: "1", limit: "10", refresh: "cache", debug: "false" },
    },
    "POST /api/environments/{project_id}/endpoints/{name}/run": {
      bodies: [
        () => ({ variables: { ev: "fuzz_a" }, limit: 10, refresh: "cache", debug: false, client_query_id: "q1" }),
      ],
    },
    "GET /api/environments/{project_id}/endpoints/{name}/materialization_status": { query: { version: "1" } },
    "GET /api/environments/{project_id}/endpoints/{name}/openapi.json": { query: { version: "1" } },
    "POST /api/environments/{project_id}/endpoints/last_execution_times": {
      bodies: [() => ({ names: [TARGET_ENDPOINT, "guard_count"] })],
    },
    "GET /api/projects/{project_id}/cohorts": { query: list },
    "POST /api/projects/{project_id}/cohorts": {
      perField: PER_FIELD_COSTLY,
      bodies: [
        () => ({ name: "Fuzz dynamic", description: "d", filters: cohortFilters() }),
        () => ({
          name: "Fuzz legacy",
          groups: [{ properties: PROPERTIES() }, { properties: [{ key: "plan", value: "pro" }] }],
        }),
        () => ({
          name: "Fuzz static",
          is_static: true,
          person_ids: [targetPerson.id, targetPerson.uuid],
          distinct_ids: ["fuzz-target"],
        }),
      ],
    },
    "PATCH /api/projects/{project_id}/cohorts/{id}": {
      // The legacy `groups` form is fuzzed through POST (the same validation).
      bodies: [targetCohortBody],
      restore: replaceDeleted(newTargetCohort),
      perField: PER_FIELD_COSTLY,
    },
    "DELETE /api/projects/{project_id}/cohorts/{id}": { victim: victimOf.cohort },
    "GET /api/projects/{project_id}/cohorts/{id}/persons": { query: list },
    "GET /api/environments/{project_id}/persons/activity": { query: { format: "json", limit: 10, page: 1 } },
    "GET /api/environments/{project_id}/persons/{id}/activity": { query: { format: "json", limit: 10, page: 1 } },
    "GET /api/environments/{project_id}/persons/{id}/properties_timeline": {
      query: {
        date_from: "-30d",
        date_to: TODAY(),
        properties: PROPERTIES().slice(0, 1),
        events: STEPS.slice(0, 1),
        breakdown: "plan",
        breakdown_type: "person",
        format: "json",
      },
    },
    "GET /api/environments/{project_id}/persons/cohorts": {
      query: { person_id: String(targetPerson.id), format: "json" },
    },
    "POST /api/environments/{project_id}/persons/bulk_delete": {
      victim: victimOf.person,
      bodies: [
        (v) => ({ ids: [v?.uuid], delete_events: true, keep_person: false }),
        (v) => ({ distinct_ids: [v?.distinctId], delete_events: false, delete_recordings: true }),
      ],
    },
    "POST /api/environments/{project_id}/persons/reset_person_distinct_id": {
      bodies: [() => ({ distinct_id: "fuzz-reset" })],
    },
    "POST /api/environments/{project_id}/persons/{id}/update_property": {
      bodies: [() => ({ key: "fuzz_prop", value: "v" })],
    },
    "POST /api/environments/{project_id}/persons/{id}/delete_property": { bodies: [() => ({ $unset: "fuzz_prop" })] },
    "POST /api/environments/{project_id}/persons/{id}/split": {
      bodies: [() => ({ distinct_ids_to_split: ["fuzz-split-anon"] }), () => ({ main_distinct_id: "fuzz-split" })],
    },
    "GET /api/environments/{project_id}/persons": {
      query: {
        ...list,
        distinct_id: "fuzz-target",
        email: "t@fuzz.test",
        search: "fuzz",
        properties: PROPERTIES(),
        format: "json",
      },
    },
    "GET /api/environments/{project_id}/persons/{id}": { query: { format: "json" } },
    "PATCH /api/environments/{project_id}/persons/{id}": {
      bodies: [() => ({ properties: { plan: "pro", nested: { list: ["a", { b: true }] } } })],
    },
    "DELETE /api/environments/{project_id}/persons/{id}": {
      victim: victimOf.person,
      query: { delete_events: "true", keep_person: "false", format: "json" },
    },
    "GET /api/personal_api_keys": { query: list },
    "POST /api/personal_api_keys": {
      bodies: [() => ({ label: "fuzz", scopes: ["person:read", "feature_flag:write"], scoped_teams: [fuzz.id] })],
    },
    "DELETE /api/personal_api_keys/{id}": { victim: victimOf.key },
    "GET /api/organizations": { query: list },
    "GET /api/organizations/{organization_id}/projects": { query: list },
    "POST /flags": { query: sdk, bodies: [flagsBody] },
    "POST /decide": { query: { v: "4" }, bodies: [flagsBody], light: true },
    "GET /flags/definitions": { query: { token: fuzz.api_token, send_cohorts: "true" } },
    "GET /api/feature_flag/local_evaluation": { query: { token: fuzz.api_token, send_cohorts: "true" } },
    "POST /batch": { bodies: [captureBody] },
    "POST /capture": { bodies: [captureBody], light: true },
    "POST /e": { bodies: [captureBody], light: true },
    "POST /i/v0/e": { bodies: [captureBody], light: true },
    "POST /i/v1/analytics/events": { bodies: [captureV1Body], key: () => fuzz.api_token },
    "POST /api/environments/{project_id}/query": {
      bodies: [
        () => ({ query: { kind: "HogQLQuery", query: "select event, count() from events group by event" } }),
        () => ({
          query: {
            kind: "TrendsQuery",
            series: [{ kind: "EventsNode", event: STEPS[0].id, math: "dau", properties: PROPERTIES().slice(0, 1) }],
            dateRange: { date_from: "-7d" },
            interval: "day",
            breakdownFilter: { breakdown: "plan", breakdown_type: "person", breakdown_limit: 5 },
            trendsFilter: { display: "ActionsLineGraph" },
            compareFilter: { compare: true },
          },
          filters_override: { date_from: "-14d", properties: PROPERTIES().slice(0, 1) },
        }),
        () => ({
          query: {
            kind: "InsightVizNode",
            source: {
              kind: "TrendsQuery",
              series: [
                { kind: "EventsNode", event: null, math: "p90", math_property: "amount" },
                { kind: "EventsNode", event: STEPS[0].id },
              ],
              trendsFilter: { display: "BoldNumber", formula: "A / B" },
            },
          },
        }),
      ],
    },
    "GET /api/projects/{project_id}/event_definitions": { query: { ...list, search: "fuzz", event_type: "event" } },
    "GET /api/projects/{project_id}/property_definitions": {
      query: { ...list, type: "event", event_names: JSON.stringify([STEPS[0].id]), search: "p", is_numerical: "false" },
    },
  };
}

/** What one fuzz request carries: path values, query, body (JSON value or raw text) and its content type. */
type Request = {
  path?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: { value: unknown } | { raw: string; contentType: string };
};

const failures: Failure[] = [];
const unusedVictims = new Map<Spec, Victim>();
let requests = 0;

async function send(op: Operation, spec: Spec, req: Request, where: string, mutationName: string) {
  // A victim lives until a request may have used it up (any answer but a 4xx refusal).
  const victim = spec.victim ? (unusedVictims.get(spec) ?? (await spec.victim())) : undefined;
  unusedVictims.delete(spec);
  const values: Record<string, string> = {};
  for (const p of op.parameters.filter((p) => p.in === "path"))
    values[p.name] = victim?.path[p.name] ?? realPathValue(op, p.name);
  Object.assign(values, req.path);
  const url = op.path.replace(/\{([^}]+)\}/g, (_m, name) => values[name]) + queryString(req.query ?? spec.query ?? {});
  let body: unknown = req.body;
  if (!req.body && spec.bodies) body = { value: spec.bodies[0](victim) };
  const options: Parameters<typeof call>[1] = { method: op.method, key: spec.key?.() };
  if (body && "raw" in (body as object)) {
    const raw = body as { raw: string; contentType: string };
    options.rawBody = raw.raw;
    options.headers = { "content-type": raw.contentType };
  } else if (body) {
    const value = (body as { value: unknown }).value;
    // A body rebuilt for this request's victim, with the mutation applied at the same place.
    options.rawBody = toJson(typeof value === "function" ? value(victim) : value);
    options.headers = { "content-type": "application/json" };
  }
  requests++;
  const op_ = `${op.method} ${op.path}`;
  const started = Date.now();
  let res: Response;
  try {
    res = await call(url, options);
  } catch (err) {
    failures.push({ op: op_, where, mutation: mutationName, status: 0, body: String(err).slice(0, 200) });
    return;
  }
  const ms = Date.now() - started;
  const slow = ms > SLOW_MS ? ` after ${(ms / 1000).toFixed(1)} s` : "";
  let problem = "";
  if (res.status >= 500) problem = res.text;
  else if (LEAK.test(res.text)) problem = `internal detail in the answer: ${res.text.match(LEAK)![0]}`;
  else if (mutationName === "none" && res.status >= 400) problem = `valid request refused: ${res.text}`;
  else if (res.status === 404 && op.path.endsWith("/remote_config") && res.text === "") {
    // By design (as PostHog's): no such remote-configuration flag is a 404 with an empty body.
  } else if (res.status >= 400) {
    try {
      envelope(res);
    } catch {
      problem = `not an error envelope: ${res.text}`;
    }
  } else if (res.headers.get("content-type")?.includes("application/json") && res.text && res.json === undefined) {
    problem = `JSON answer that does not parse: ${res.text}`;
  }
  if (problem) {
    failures.push({
      op: op_,
      where,
      mutation: mutationName,
      status: res.status,
      slow,
      body: problem.slice(0, 200),
    });
  } else if (res.status < 300 && spec.restore && op.method !== "GET") {
    await spec.restore(res);
  }
  if (victim && res.status >= 400 && res.status < 500) unusedVictims.set(spec, victim);
}

/** The fields of a body: every path of the valid body, and each schema property it leaves out. */
function bodyFields(base: unknown, schema: Schema | undefined): { path: JsonPath; kind: Kind }[] {
  const fields: { path: JsonPath; kind: Kind }[] = [];
  const schemaAt = (path: JsonPath) =>
    path.reduce<Schema | undefined>((s, key) => childSchema(doc, s, key), resolve(doc, schema));
  for (const path of jsonPaths(base)) {
    const s = schemaAt(path);
    const fromSchema = kindOfSchema(s);
    fields.push({ path, kind: fromSchema === "any" ? kindOfValue(getAt(base, path)) : fromSchema });
    const value = getAt(base, path);
    const props = resolve(doc, s)?.properties;
    if (props && value && typeof value === "object" && !Array.isArray(value)) {
      for (const [name, prop] of Object.entries<Schema>(props))
        if (!(name in value)) fields.push({ path: [...path, name], kind: kindOfSchema(resolve(doc, prop)) });
    }
  }
  return fields;
}

/** The paths of the objects (not arrays) inside a JSON value, itself included. */
const objectPaths = (value: unknown) =>
  jsonPaths(value).filter((path) => {
    const node = getAt(value, path);
    return node !== null && typeof node === "object" && !Array.isArray(node);
  });

/** The reads of a project's flags (swept once more in each sink project). */
const readsFlags = (op: Operation) =>
  (op.method === "GET" && /^\/api\/projects\/\{project_id\}\/feature_flags(\/[a-z_]+)?$/.test(op.path)) ||
  ["POST /flags", "POST /decide", "GET /flags/definitions", "GET /api/feature_flag/local_evaluation"].includes(
    `${op.method} ${op.path}`,
  );

/** Generalizes array indexes so one family covers every element. */
const family = (f: Failure) =>
  `${f.op} | ${f.where.replace(/\[\d+\]/g, "[]")} = ${f.mutation} → ${f.status}${f.slow ? " (slow)" : ""}`;

beforeAll(async () => {
  doc = (await call("/api/schema/", { key: null })).json;
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const schema = op.requestBody?.content?.["application/json"]?.schema;
      operations.push({
        method: method.toUpperCase(),
        path,
        auth: op["x-auth"],
        parameters: op.parameters ?? [],
        bodySchema: schema,
      });
    }
  }
  fuzz = await createProject("fuzz target", "Europe/Paris");
  guard = await createProject("fuzz guard", "America/New_York");
  for (const p of [fuzz, guard]) await seedGuard(p);
  // Fuzz targets, beside the guard's objects in the same project.
  await capture(fuzz.api_token, [
    {
      event: "fuzz_a",
      distinct_id: "fuzz-target",
      timestamp: RECENT(),
      properties: { $browser: "Chrome", $set: { plan: "pro", email: "t@fuzz.test", name: "Target" } },
    },
    { event: "fuzz_c", distinct_id: "fuzz-target", timestamp: RECENT() },
    { event: "fuzz_b", distinct_id: "fuzz-target", timestamp: new Date().toISOString() },
    { event: "$identify", distinct_id: "fuzz-target", properties: { $anon_distinct_id: "fuzz-target-anon" } },
    { event: "fuzz_a", distinct_id: "fuzz-split", properties: { $set: { plan: "free" } } },
    { event: "$identify", distinct_id: "fuzz-split", properties: { $anon_distinct_id: "fuzz-split-anon" } },
    { event: "fuzz_a", distinct_id: "fuzz-reset" },
  ]);
  await identifyGroup(fuzz.api_token, "company", "acme", { size: 5 });
  targetPerson = await personOf(fuzz.id, "fuzz-target");
  splitPerson = await personOf(fuzz.id, "fuzz-split");
  await newTargetFlag();
  const remote = {
    key: "fuzz-remote",
    is_remote_configuration: true,
    filters: { groups: [{}], payloads: { true: '{"a": 1}' } },
  };
  remoteFlag = (await createFlag(fuzz.id, remote)).id;
  await newTargetCohort();
  await ok(
    await call(endpointsPath(fuzz.id), { method: "POST", body: endpointBody(TARGET_ENDPOINT) }),
    "target endpoint",
  );
  before = await snapshot();
}, 120_000);

describe("schema fuzz", () => {
  it("answers 401 in the envelope to every operation without a key or with a wrong key", async () => {
    const problems: string[] = [];
    for (const op of operations) {
      if (op.auth === "public") continue;
      const path = op.path.replace(/\{([^}]+)\}/g, (_m, name) =>
        name === "token" ? "phc_with space" : realPathValue(op, name),
      );
      const tries: [string, Parameters<typeof call>[1]][] =
        op.auth === "project_token"
          ? [
              [
                "no token",
                {
                  method: op.method,
                  key: null,
                  body: op.method === "GET" ? undefined : { distinct_id: "x", event: "x" },
                },
              ],
              [
                "wrong token",
                {
                  method: op.method,
                  key: null,
                  body:
                    op.method === "GET"
                      ? undefined
                      : { token: "phc_wrong", api_key: "phc_wrong", distinct_id: "x", event: "x" },
                },
              ],
            ]
          : [
              ["no key", { method: op.method, key: null }],
              ["wrong key", { method: op.method, key: "phx_wrong_key_for_the_fuzz_0000000000" }],
            ];
      for (const [what, options] of tries) {
        const query =
          op.path.startsWith("/flags/definitions") || op.path.startsWith("/api/feature_flag/")
            ? `?token=${fuzz.api_token}`
            : "";
        const res = await call(path + query, options);
        let code = "";
        try {
          code = envelope(res).code;
        } catch {}
        if (res.status !== 401 || !code)
          problems.push(`${op.method} ${op.path} (${what}): ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("answers every hostile input below 500, each 4xx in the envelope", async () => {
    const table = specs();
    const started = Date.now();
    // Every read once before any write, so a failure that stored data causes shows as such.
    for (const op of operations.filter((o) => o.method === "GET"))
      await send(op, table[`${op.method} ${op.path}`] ?? {}, {}, "valid request before the fuzz", "none");
    for (const op of operations) {
      const spec = table[`${op.method} ${op.path}`] ?? {};
      const perField = spec.light ? 0 : (spec.perField ?? PER_FIELD);
      const keyMutations = spec.light ? [] : KEY_MUTATIONS;
      // Each field draws from its own PRNG (seeded by the operation and the field), so adding a field
      // or an operation leaves the draws of the others as they were.
      const draw = (kind: Kind, field: string) =>
        mutationsFor(kind, mulberry32(SEED ^ hash(`${op.method} ${op.path} ${field}`)), perField);
      const query = spec.query ?? {};
      const bases = spec.bodies ?? (["POST", "PATCH", "PUT"].includes(op.method) ? [() => ({})] : []);
      const firstBody = bases.length ? bases[0] : undefined;
      const withBody = (r: Request): Request => (firstBody && !r.body ? { ...r, body: { value: firstBody } } : r);

      if (bases.length)
        for (const base of bases) await send(op, spec, { body: { value: base } }, "valid request", "none");
      else await send(op, spec, {}, "valid request", "none");
      await send(
        op,
        spec,
        withBody({ query: { ...query, constructor: "x".repeat(100 * 1024) } }),
        "query constructor",
        "undeclared str100k",
      );

      for (const param of op.parameters.filter((p) => p.in === "path")) {
        const extra =
          param.name === "id" && op.path.includes("/persons/")
            ? [{ name: "integer id", value: String(op.path.endsWith("/split") ? splitPerson.id : targetPerson.id) }]
            : [];
        for (const m of [...PATH_MUTATIONS, ...extra])
          await send(op, spec, withBody({ path: { [param.name]: m.value as string } }), `path ${param.name}`, m.name);
      }

      for (const param of op.parameters.filter((p) => p.in === "query")) {
        const baseValue = query[param.name];
        const isJson = baseValue !== null && typeof baseValue === "object";
        const kind = isJson ? kindOfValue(baseValue) : kindOfSchema(resolve(doc, param.schema));
        const list: Mutation[] = [...draw(kind, `query ${param.name}`), ...RAW_QUERY_MUTATIONS];
        if (param.name === "search") list.push({ name: "search64", value: SEARCH64 });
        for (const m of list)
          await send(op, spec, withBody({ query: { ...query, [param.name]: m.value } }), `query ${param.name}`, m.name);
        if (!isJson) continue;
        // A JSON-valued parameter (filters, events, groups): one leaf of the valid value at a time.
        const sendJson = (value: unknown, where: string, mutation: string) =>
          send(
            op,
            spec,
            withBody({ query: { ...query, [param.name]: value } }),
            `query ${param.name}:${where}`,
            mutation,
          );
        for (const path of jsonPaths(baseValue).slice(1)) {
          for (const m of draw(kindOfValue(getAt(baseValue, path)), `query ${param.name}:${pathLabel(path)}`))
            await sendJson(setAt(baseValue, path, m.value), pathLabel(path), m.name);
        }
        for (const path of objectPaths(baseValue)) {
          for (const m of keyMutations)
            await sendJson(
              setAt(baseValue, [...path, m.value as string], "v"),
              `${pathLabel(path)} member name`,
              m.name,
            );
        }
      }

      for (const [index, base] of bases.entries()) {
        const sample = base({ path: {}, uuid: "00000000-0000-0000-0000-000000000000", distinctId: "sample" });
        for (const field of bodyFields(sample, op.bodySchema)) {
          for (const m of draw(field.kind, `body ${index} ${pathLabel(field.path)}`)) {
            const value = (victim?: Victim) => setAt(base(victim), field.path, m.value);
            await send(op, spec, { body: { value } }, `body ${pathLabel(field.path)}`, m.name);
          }
        }
        for (const path of objectPaths(sample)) {
          for (const m of keyMutations) {
            const value = (victim?: Victim) => setAt(base(victim), [...path, m.value as string], "v");
            await send(op, spec, { body: { value } }, `body ${pathLabel(path)} member name`, m.name);
          }
        }
        const text = toJson(sample);
        const sendRaw = (raw: string, contentType: string, where: string, mutation: string) =>
          send(op, spec, { body: { raw, contentType } }, where, mutation);
        if (text.startsWith("{") && text !== "{}") {
          const polluted = `{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},${text.slice(1)}`;
          await sendRaw(polluted, "application/json", "body __proto__", "prototype pollution");
        }
        await sendRaw(text.slice(0, Math.max(1, text.length >> 1)), "application/json", "body text", "truncated");
        await sendRaw("name=x&a=%ZZ", "application/json", "body text", "not json");
        await sendRaw(text, "text/plain", "content-type", "text/plain");
        await sendRaw(text, "application/x-www-form-urlencoded", "content-type", "form");
      }
    }
    // Hostile data stored by the writes above must not break the reads: every GET once more, valid,
    // and the flag reads of each sink project (where the created flags went).
    for (const op of operations.filter((o) => o.method === "GET")) {
      await send(op, table[`${op.method} ${op.path}`] ?? {}, {}, "valid request after the fuzz", "none");
    }
    for (const sink of flagSink.all) {
      for (const op of operations.filter(readsFlags)) {
        const spec = table[`${op.method} ${op.path}`] ?? {};
        const query = spec.query && "token" in spec.query ? { ...spec.query, token: sink.api_token } : spec.query;
        const body = spec.bodies ? { value: { ...(spec.bodies[0]() as object), token: sink.api_token } } : undefined;
        await send(op, spec, { path: { project_id: String(sink.id) }, query, body }, "valid request in a sink", "none");
      }
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1);

    const families = new Map<string, { count: number; example: Failure }>();
    for (const f of failures) {
      const key = family(f);
      const entry = families.get(key);
      if (entry) entry.count++;
      else families.set(key, { count: 1, example: f });
    }
    const report = [...families]
      .map(([key, { count, example }]) => `${key} (×${count}${example.slow ?? ""}): ${example.body}`)
      .sort();
    expect(report, `${requests} requests (${victims} victims) in ${seconds} s; ${failures.length} failed`).toEqual([]);
  }, 600_000);

  it("leaves the data seeded before the fuzz as it was", async () => {
    expect(await snapshot()).toEqual(before);
  });
});
