import { beforeAll, describe, expect, it } from "vitest";
import { call, createFlag, createProject, envelope } from "../helpers";
import { capture, personsPath } from "../persons/helpers";

/**
 * Oversized or hostile filter input is a 400 naming the field wherever filters are accepted (one
 * shared validator), and long search or filter texts still search (D1 refuses LIKE and GLOB patterns
 * over 50 bytes, statements over 100 KB and more than 100 bound parameters).
 */
let project: { id: number; api_token: string };
const LONG = "x".repeat(100_000);
/** A key with everything a quoted SQLite JSON path label would trip on. */
const ODD_KEY = 'we"ird\\key\u0000.[0]%_';
const EVERYONE = { groups: [{ properties: [], rollout_percentage: 100 }] };
const text64 = "a sixty-four character name that D1 could not put in a LIKE pat";

beforeAll(async () => {
  project = await createProject();
  await capture(project.api_token, [
    { event: "x", distinct_id: "long-1", properties: { $set: { email: `${text64}@example.com`, plan: "pro" } } },
    { event: "x", distinct_id: `id-${text64}`, properties: { $set: { plan: "free" } } },
    { event: "x", distinct_id: "short", properties: { $set: { email: "short@example.com", [ODD_KEY]: "odd" } } },
  ]);
});

/** A one-step funnel's persons drill-down over the last week, with `body`'s filters and breakdown. */
const funnel = (body: Record<string, unknown>) =>
  call(personsPath(project.id, "funnel/"), {
    method: "POST",
    body: { events: [{ id: "x", order: 0 }], date_from: "-7d", funnel_step: 1, ...body },
  });

const expect400 = (res: { status: number; json: any }, attr: string, detail?: RegExp) => {
  expect(res.status, JSON.stringify(res.json)?.slice(0, 300)).toBe(400);
  const body = envelope(res);
  expect(body.attr).toBe(attr);
  if (detail) expect(body.detail).toMatch(detail);
  // The detail quotes at most an excerpt of what was sent.
  expect(body.detail.length).toBeLessThan(400);
};

describe("search text of any length", () => {
  it("finds flags by a 64-character search (and refuses PostHog's over 200)", async () => {
    await createFlag(project.id, { key: "long-named", name: `${text64} flag`, filters: EVERYONE });
    await createFlag(project.id, { key: "other", name: "other", filters: EVERYONE });
    const res = await call(`/api/projects/${project.id}/feature_flags/?search=${encodeURIComponent(text64)}`);
    expect(res.status).toBe(200);
    expect(res.json.results.map((f: { key: string }) => f.key)).toEqual(["long-named"]);
    const upper = await call(
      `/api/projects/${project.id}/feature_flags/?search=${encodeURIComponent(text64.toUpperCase())}`,
    );
    expect(upper.json.results.map((f: { key: string }) => f.key)).toEqual(["long-named"]);
    // LIKE's wildcards are plain text.
    const wild = await call(`/api/projects/${project.id}/feature_flags/?search=${encodeURIComponent("%_")}`);
    expect(wild.json.results).toEqual([]);
    expect400(
      await call(`/api/projects/${project.id}/feature_flags/?search=${"s".repeat(201)}`),
      "search",
      /^Search term cannot exceed 200 characters$/,
    );
  });

  it("finds persons by long search texts over emails and distinct ids", async () => {
    const search = async (term: string) => {
      const res = await call(`${personsPath(project.id)}?search=${encodeURIComponent(term)}`);
      expect(res.status).toBe(200);
      return res.json.results.map((p: { distinct_ids: string[] }) => p.distinct_ids[0]).sort();
    };
    expect(await search(`${text64}@EXAMPLE`)).toEqual(["long-1"]);
    expect(await search(`id-${text64}`)).toEqual([`id-${text64}`]);
    expect(await search(text64)).toEqual([`id-${text64}`, "long-1"]);
    expect(await search("%")).toEqual([]);
    expect(await search(LONG.slice(0, 5000))).toEqual([]);
  });
});

describe("property filters", () => {
  const personsWhere = (filters: unknown) =>
    call(`${personsPath(project.id)}?properties=${encodeURIComponent(JSON.stringify(filters))}`);

  it("matches icontains and regex values longer than D1's pattern limit, and many values at once", async () => {
    const contains = await personsWhere([{ key: "email", operator: "icontains", value: text64.toUpperCase() }]);
    expect(contains.status).toBe(200);
    expect(contains.json.results.map((p: any) => p.distinct_ids[0])).toEqual(["long-1"]);
    // More values than D1 binds parameters to one statement.
    const many = Array.from({ length: 150 }, (_, i) => `nothing-${i}`).concat(["SHORT@"]);
    const list = await personsWhere([{ key: "email", operator: "icontains", value: many }]);
    expect(list.status).toBe(200);
    expect(list.json.results.map((p: any) => p.distinct_ids[0])).toEqual(["short"]);
    const regexes = Array.from({ length: 150 }, (_, i) => `^nothing-${i}$`).concat(["^short@"]);
    const regex = await personsWhere([{ key: "email", operator: "regex", value: regexes }]);
    expect(regex.status).toBe(200);
    expect(regex.json.results.map((p: any) => p.distinct_ids[0])).toEqual(["short"]);
  });

  it("filters and breaks down on keys holding quotes, backslashes, NUL and path syntax", async () => {
    const res = await personsWhere([{ key: ODD_KEY, value: "odd" }]);
    expect(res.status, res.text).toBe(200);
    expect(res.json.results.map((p: any) => p.distinct_ids[0])).toEqual(["short"]);
    const odd = await funnel({ breakdown: ODD_KEY, breakdown_type: "person", funnel_step_breakdown: "odd" });
    expect(odd.status, odd.text).toBe(200);
    expect(odd.json.results[0].people.map((p: any) => p.distinct_ids[0])).toEqual(["short"]);
  });

  it("runs analysis filters of any size and text (ClickHouse: past the URL's budget, values travel as literals)", async () => {
    const needles = Array.from({ length: 900 }, (_, i) => `no-${i}-'\\`).concat(["PRO"]);
    const big = await funnel({ properties: [{ key: "plan", operator: "icontains", value: needles, type: "person" }] });
    expect(big.status, big.text.slice(0, 300)).toBe(200);
    expect(big.json.results[0].people.map((p: any) => p.distinct_ids[0])).toEqual(["long-1"]);
    const long = await funnel({ properties: [{ key: "email", value: "e".repeat(9_000), type: "person" }] });
    expect(long.status, long.text.slice(0, 300)).toBe(200);
    expect(long.json.results[0].people).toEqual([]);
    const surrogate = await funnel({ events: [{ id: "\ud800", order: 0 }] });
    expect(surrogate.status, surrogate.text.slice(0, 300)).toBe(200);
    expect(surrogate.json.results[0].people).toEqual([]);
  });

  it("refuses a regex whose translation D1 cannot run, quoting only an excerpt", async () => {
    expect400(
      await personsWhere([{ key: "email", operator: "regex", value: `^${"a".repeat(60)}` }]),
      "properties",
      /50 bytes/,
    );
    expect400(await personsWhere([{ key: "email", operator: "regex", value: LONG.slice(0, 5000) }]), "properties");
  });

  const oversized = [
    ["a 100 KB key", { key: LONG, value: "x", type: "person" }, /keys are at most 400 characters/],
    ["a 100 KB value", { key: "plan", value: LONG, type: "person" }, /longer than 10000 characters/],
    [
      "a list of 1001 values",
      { key: "plan", value: Array.from({ length: 1001 }, String), type: "person" },
      /more than 1000 values/,
    ],
  ] as const;

  for (const [what, filter, detail] of oversized) {
    it(`refuses ${what} alike in flags, cohorts, persons, analysis and test account filters`, async () => {
      const flag = await call(`/api/projects/${project.id}/feature_flags/`, {
        method: "POST",
        body: { key: `f-${crypto.randomUUID().slice(0, 8)}`, filters: { groups: [{ properties: [filter] }] } },
      });
      expect400(flag, "filters", detail);
      const cohort = await call(`/api/projects/${project.id}/cohorts/`, {
        method: "POST",
        body: { name: "big", groups: [{ properties: [filter] }] },
      });
      expect400(cohort, "filters", detail);
      if (what !== "a 100 KB key" && what !== "a 100 KB value")
        expect400(await personsWhere([filter]), "properties", detail);
      expect400(await funnel({ properties: [filter] }), "properties", detail);
      const testAccounts = await call(`/api/projects/${project.id}/`, {
        method: "PATCH",
        body: { test_account_filters: [filter] },
      });
      expect400(testAccounts, "test_account_filters", detail);
    });
  }

  it("refuses an oversized cohort value on PATCH and leaves the cohort as it was", async () => {
    const created = await call(`/api/projects/${project.id}/cohorts/`, {
      method: "POST",
      body: { name: "pro", groups: [{ properties: [{ key: "plan", value: "pro", type: "person" }] }] },
    });
    expect(created.status).toBe(201);
    const patch = await call(`/api/projects/${project.id}/cohorts/${created.json.id}/`, {
      method: "PATCH",
      body: { groups: [{ properties: [{ key: "plan", value: LONG, type: "person" }] }] },
    });
    expect400(patch, "filters");
    const after = await call(`/api/projects/${project.id}/cohorts/${created.json.id}/`);
    expect(after.json).toMatchObject({ version: created.json.version, filters: created.json.filters, count: 1 });
  });
});
