import { PostHog } from "posthog-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, newProject, workerUrl, createFlag as createProjectFlag } from "./client";

/**
 * posthog-node, unmodified, pointed at the running worker: one client polls /flags/definitions
 * with a personal API key and evaluates locally only; another asks /flags. They must agree on
 * every flag for 1000+ distinct ids over rollouts, multivariate flags, property filters, cohorts,
 * group flags (with and without the group) and a flag dependency. Person properties travel in
 * the request for both (the same properties either way); a last test captures persons with
 * posthog-node and checks that /flags reads their stored properties.
 */
let project: { id: number; api_token: string };
/** Active flags in the suite (the inactive one is extra). */
const FLAGS = 15;
let personalKey: string;
let local: PostHog;
let remote: PostHog;

const IDS = Array.from({ length: 1000 }, (_, i) => `user-${i}-${(i * 7919) % 1009}`);
const PLANS = ["free", "pro", "enterprise"];
const TIERS = ["gold", "silver", "bronze"];
/** Every third id belongs to no company, so group flags also see a missing group. */
const groupsOf = (i: number): Record<string, string> => (i % 3 === 2 ? {} : { company: `company-${i % 11}` });
const groupPropertiesOf = (i: number): Record<string, Record<string, string>> =>
  i % 3 === 2 ? {} : { company: { tier: TIERS[(i % 11) % 3] } };
const propertiesOf = (i: number) => ({
  plan: PLANS[i % 3],
  email: `person${i}@${i % 4 === 0 ? "acme.com" : "example.org"}`,
  age: 18 + (i % 50),
  country: i % 5 === 0 ? "DE" : "US",
});

const createFlag = (body: Record<string, unknown>) => createProjectFlag(project.id, body);

async function createCohort(name: string, properties: unknown): Promise<number> {
  const res = await api(`/api/projects/${project.id}/cohorts/`, {
    method: "POST",
    body: { name, filters: { properties } },
  });
  if (res.status !== 201) throw new Error(`cohort ${name}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json.id;
}

beforeAll(async () => {
  project = await newProject();
  const key = await api("/api/personal_api_keys/", {
    method: "POST",
    body: { label: "sdk", scopes: ["feature_flag:read"], scoped_teams: [project.id] },
  });
  personalKey = key.json.value;

  const pros = await createCohort("pros", {
    type: "OR",
    values: [
      { type: "AND", values: [{ key: "plan", type: "person", operator: "exact", value: ["pro", "enterprise"] }] },
    ],
  });
  const grownUps = await createCohort("grown-up pros", {
    type: "AND",
    values: [
      { type: "AND", values: [{ key: "id", type: "cohort", value: pros }] },
      {
        type: "OR",
        values: [
          { key: "age", type: "person", operator: "gte", value: "40" },
          { key: "country", type: "person", operator: "exact", value: "DE", negation: true },
        ],
      },
    ],
  });

  // The group type "company" (index 0) comes from a captured $groupidentify, as an SDK would create it.
  const captured = await fetch(`${workerUrl()}/batch/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      api_key: project.api_token,
      batch: [
        {
          event: "$groupidentify",
          distinct_id: "setup",
          properties: { $group_type: "company", $group_key: "company-0", $group_set: {} },
        },
      ],
    }),
  });
  expect(captured.status).toBe(200);

  for (const pct of [0, 10, 33.3, 50, 99])
    await createFlag({
      key: `rollout-${String(pct).replace(".", "_")}`,
      filters: { groups: [{ properties: [], rollout_percentage: pct }] },
    });
  await createFlag({
    key: "multi",
    filters: {
      groups: [{ properties: [], rollout_percentage: 80 }],
      multivariate: {
        variants: [
          { key: "control", rollout_percentage: 34 },
          { key: "test", rollout_percentage: 33 },
          { key: "other", rollout_percentage: 33 },
        ],
      },
      payloads: { test: '{"x": 1}' },
    },
  });
  await createFlag({
    key: "multi-override",
    filters: {
      groups: [
        {
          properties: [{ key: "email", type: "person", operator: "icontains", value: "@acme.com" }],
          rollout_percentage: 100,
          variant: "b",
        },
        { properties: [], rollout_percentage: 60 },
      ],
      multivariate: {
        variants: [
          { key: "a", rollout_percentage: 50 },
          { key: "b", rollout_percentage: 50 },
        ],
      },
    },
  });
  await createFlag({
    key: "props-exact",
    filters: {
      groups: [
        { properties: [{ key: "plan", type: "person", operator: "exact", value: ["pro"] }], rollout_percentage: 70 },
      ],
    },
  });
  await createFlag({
    key: "props-mixed",
    filters: {
      groups: [
        {
          properties: [
            { key: "age", type: "person", operator: "gt", value: 40 },
            { key: "country", type: "person", operator: "is_not", value: "DE" },
          ],
        },
        {
          properties: [{ key: "email", type: "person", operator: "regex", value: "^person1\\d*@" }],
          rollout_percentage: 50,
        },
      ],
    },
  });
  await createFlag({
    key: "cohort-pros",
    filters: { groups: [{ properties: [{ key: "id", type: "cohort", value: pros }], rollout_percentage: 90 }] },
  });
  await createFlag({
    key: "cohort-nested",
    filters: { groups: [{ properties: [{ key: "id", type: "cohort", value: grownUps }] }] },
  });
  await createFlag({
    key: "company-gold",
    filters: {
      aggregation_group_type_index: 0,
      groups: [
        { properties: [{ key: "tier", type: "group", group_type_index: 0, value: "gold" }], rollout_percentage: 60 },
      ],
    },
  });
  await createFlag({
    key: "company-rollout",
    filters: {
      aggregation_group_type_index: 0,
      groups: [{ properties: [], rollout_percentage: 40 }],
      multivariate: {
        variants: [
          { key: "x", rollout_percentage: 50 },
          { key: "y", rollout_percentage: 50 },
        ],
      },
    },
  });
  const multi = (await api(`/api/projects/${project.id}/feature_flags/?search=multi-override`)).json.results[0];
  await createFlag({
    key: "depends-on-b",
    filters: {
      groups: [
        {
          properties: [{ key: String(multi.id), type: "flag", operator: "flag_evaluates_to", value: "b" }],
          rollout_percentage: 75,
        },
      ],
    },
  });
  await createFlag({
    key: "stored-pros",
    filters: { groups: [{ properties: [{ key: "plan", type: "person", operator: "exact", value: ["pro"] }] }] },
  });
  await createFlag({
    key: "inactive",
    active: false,
    filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
  });

  local = new PostHog(project.api_token, {
    host: workerUrl(),
    personalApiKey: personalKey,
    featureFlagsPollingInterval: 600_000,
    flushAt: 1,
  });
  remote = new PostHog(project.api_token, { host: workerUrl(), flushAt: 1 });
  await local.reloadFeatureFlags();
});

afterAll(async () => {
  await local?.shutdown();
  await remote?.shutdown();
});

describe("posthog-node local evaluation agrees with the worker's /flags", () => {
  it("for every flag and 1000 distinct ids", async () => {
    const mismatches: string[] = [];
    let compared = 0;
    for (let start = 0; start < IDS.length; start += 25) {
      await Promise.all(
        IDS.slice(start, start + 25).map(async (id, j) => {
          const options = {
            personProperties: propertiesOf(start + j),
            groups: groupsOf(start + j),
            groupProperties: groupPropertiesOf(start + j),
          };
          const [mine, theirs] = await Promise.all([
            local.getAllFlags(id, { ...options, onlyEvaluateLocally: true }),
            remote.getAllFlags(id, options),
          ]);
          // Like PostHog, /flags leaves inactive flags out; local evaluation reports them false.
          expect(Object.keys(theirs).sort()).toEqual(
            Object.keys(mine)
              .filter((k) => k !== "inactive")
              .sort(),
          );
          expect(Object.keys(theirs).length).toBe(FLAGS);
          expect(mine.inactive).toBe(false);
          for (const key of Object.keys(theirs)) {
            compared++;
            if (mine[key] !== theirs[key]) mismatches.push(`${id} ${key}: local ${mine[key]} remote ${theirs[key]}`);
          }
        }),
      );
    }
    expect(mismatches).toEqual([]);
    expect(compared).toBe(FLAGS * 1000);
  });

  it("is not trivially uniform: rollouts and variants split the ids", async () => {
    const values = await Promise.all(
      IDS.slice(0, 200).map((id, i) =>
        local.getAllFlags(id, {
          personProperties: propertiesOf(i),
          groups: groupsOf(i),
          groupProperties: groupPropertiesOf(i),
          onlyEvaluateLocally: true,
        }),
      ),
    );
    const count = (key: string, v: unknown) => values.filter((f) => f[key] === v).length;
    expect(count("rollout-50", true)).toBeGreaterThan(60);
    expect(count("rollout-50", false)).toBeGreaterThan(60);
    expect(new Set(values.map((f) => f.multi))).toEqual(new Set(["control", "test", "other", false]));
    expect(count("cohort-nested", true)).toBeGreaterThan(0);
    expect(count("cohort-nested", false)).toBeGreaterThan(0);
    for (const key of ["company-gold", "depends-on-b"]) {
      expect(count(key, true), key).toBeGreaterThan(0);
      expect(count(key, false), key).toBeGreaterThan(0);
    }
    expect(new Set(values.map((f) => f["company-rollout"]))).toEqual(new Set(["x", "y", false]));
  });
});

describe("remote evaluation with persons captured by posthog-node", () => {
  it("reads the stored person's properties when the request sends none", async () => {
    remote.identify({ distinctId: "captured-pro", properties: { plan: "pro" } });
    remote.identify({ distinctId: "captured-free", properties: { plan: "free" } });
    await remote.flush();
    expect(await remote.getFeatureFlag("stored-pros", "captured-pro", { sendFeatureFlagEvents: false })).toBe(true);
    expect(await remote.getFeatureFlag("stored-pros", "captured-free", { sendFeatureFlagEvents: false })).toBe(false);
    // Properties sent with the request win over stored ones.
    expect(
      await remote.getFeatureFlag("stored-pros", "captured-free", {
        personProperties: { plan: "pro" },
        sendFeatureFlagEvents: false,
      }),
    ).toBe(true);
  });
});

describe("polling /flags/definitions", () => {
  it("answers 304 to an unchanged poll and a fresh payload right after an update", async () => {
    const url = `${workerUrl()}/flags/definitions?token=${project.api_token}&send_cohorts`;
    const headers = { authorization: `Bearer ${personalKey}` };
    const first = await fetch(url, { headers });
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag")!;
    const unchanged = await fetch(url, { headers: { ...headers, "if-none-match": etag } });
    expect(unchanged.status).toBe(304);

    const flags = (await api(`/api/projects/${project.id}/feature_flags/?search=rollout-0`)).json.results;
    await api(`/api/projects/${project.id}/feature_flags/${flags[0].id}/`, {
      method: "PATCH",
      body: { filters: { groups: [{ properties: [], rollout_percentage: 100 }] } },
    });
    const changed = await fetch(url, { headers: { ...headers, "if-none-match": etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);

    await local.reloadFeatureFlags();
    expect(
      await local.getFeatureFlag("rollout-0", "anyone", { onlyEvaluateLocally: true, sendFeatureFlagEvents: false }),
    ).toBe(true);
    expect(await remote.getFeatureFlag("rollout-0", "anyone", { sendFeatureFlagEvents: false })).toBe(true);
  });
});
