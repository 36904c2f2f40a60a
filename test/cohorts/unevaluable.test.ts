import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createFlag, createProject, envelope, onClickHouse } from "../helpers";
import { capture, personByDistinctId } from "../persons/helpers";

/**
 * A stored cohort that cannot be evaluated (written before today's validation; here inserted
 * directly in D1, since the API refuses such definitions) is left out where cohorts are read
 * together, marked where it is read alone, and never takes down a read for the other cohorts.
 */
let project: { id: number; api_token: string };
let pro: number;
const broken: Record<string, number> = {};
const path = (rest = "") => `/api/projects/${project.id}/cohorts/${rest}`;

/** A cohort row written straight into D1, as an older version could have stored it. */
async function storedCohort(name: string, filters: unknown) {
  const row = await env.DB.prepare(
    "INSERT INTO cohorts (project_id, name, filters, is_static, created_at) VALUES (?, ?, ?, 0, ?) RETURNING id",
  )
    .bind(project.id, name, JSON.stringify(filters), new Date().toISOString())
    .first<{ id: number }>();
  return row!.id;
}

const person = (key: string, value: unknown, operator = "exact") => ({
  properties: { type: "AND", values: [{ key, value, operator, type: "person" }] },
});

/** 50 comparisons on 400-character keys: each key within the limits, together too much for one D1 statement. */
const TOO_LONG = {
  properties: {
    type: "AND",
    values: Array.from({ length: 50 }, (_, i) => ({
      key: `${i}`.padEnd(400, "k"),
      value: 1,
      operator: "gt",
      type: "person",
    })),
  },
};

beforeAll(async () => {
  project = await createProject();
  await capture(project.api_token, [
    { event: "seen", distinct_id: "ann", timestamp: "2024-01-02T10:00:00Z", properties: { $set: { plan: "pro" } } },
    { event: "seen", distinct_id: "ben", timestamp: "2024-01-02T10:00:00Z", properties: { $set: { plan: "free" } } },
  ]);
  const created = await call(path(), { method: "POST", body: { name: "pro", filters: person("plan", "pro") } });
  expect(created.status).toBe(201);
  pro = created.json.id;
  // Valid filter by filter, but D1 refuses the statement they compile to (longer than 100 KB).
  broken.tooLong = await storedCohort("too long", TOO_LONG);
  // Does not compile: a regex the GLOB translation refuses.
  broken.badRegex = await storedCohort("bad regex", person("plan", "(unbalanced", "regex"));
  // Not a filter group at all.
  broken.malformed = await storedCohort("malformed", { properties: "nonsense" });
});

describe("a stored cohort that cannot be evaluated", () => {
  it("cannot be written through the API", async () => {
    const res = await call(path(), { method: "POST", body: { name: "too long", filters: TOO_LONG } });
    expect(res.status, res.text).toBe(400);
    expect(envelope(res)).toMatchObject({ attr: "filters" });
    expect(envelope(res).detail).toMatch(/^This cohort's filters cannot be evaluated: /);
  });

  it("is left out of a person's cohorts; the others still answer", async () => {
    const ann = (await personByDistinctId(project.id, "ann"))!;
    const res = await call(`/api/environments/${project.id}/persons/cohorts/?person_id=${ann.uuid}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.results.map((c: { id: number }) => c.id)).toEqual([pro]);
  });

  it("leaves the cohort list answering, and is marked (no count, one error) when read alone", async () => {
    const list = await call(path());
    expect(list.status).toBe(200);
    expect(list.json.results.map((c: { id: number }) => c.id).sort()).toEqual(
      [pro, ...Object.values(broken)].sort((a, b) => a - b),
    );
    for (const id of Object.values(broken)) {
      const one = await call(path(`${id}/`));
      expect(one.status, one.text).toBe(200);
      expect(one.json).toMatchObject({ id, count: null, errors_calculating: 1 });
      const members = await call(path(`${id}/persons/`));
      expect(members.status, members.text).toBe(400);
      expect(envelope(members)).toMatchObject({ attr: "filters" });
      expect(envelope(members).detail).toMatch(new RegExp(`^Cohort ${id} cannot be evaluated: `));
    }
    expect((await call(path(`${pro}/`))).json).toMatchObject({ count: 1, errors_calculating: 0 });
  });

  it("leaves flag evaluation and definitions answering for flags on other cohorts", async () => {
    await createFlag(project.id, {
      key: "for-pro",
      filters: { groups: [{ properties: [{ key: "id", type: "cohort", value: pro }], rollout_percentage: 100 }] },
    });
    const flags = await call("/flags/?v=2", {
      method: "POST",
      key: null,
      body: { token: project.api_token, distinct_id: "ann", person_properties: { plan: "pro" } },
    });
    expect(flags.status).toBe(200);
    expect(flags.json.flags["for-pro"].enabled).toBe(true);
    const definitions = await call(`/api/feature_flag/local_evaluation?token=${project.api_token}`);
    expect(definitions.status).toBe(200);
  });

  it("leaves the analysis routes answering for other cohorts; filtering on it is a 400", async () => {
    const funnel = (cohort: number) =>
      call(`/api/environments/${project.id}/persons/funnel/`, {
        method: "POST",
        body: {
          events: [{ id: "seen", order: 0 }],
          date_from: "2024-01-01",
          date_to: "2024-01-31",
          funnel_step: 1,
          properties: [{ type: "cohort", key: "id", value: cohort }],
        },
      });
    const fine = await funnel(pro);
    expect(fine.status, fine.text).toBe(200);
    expect(fine.json.results[0].people.map((p: { distinct_ids: string[] }) => p.distinct_ids[0])).toEqual(["ann"]);
    for (const id of Object.values(broken)) {
      const persons = await call(
        `/api/environments/${project.id}/persons/?properties=${encodeURIComponent(JSON.stringify([{ type: "cohort", key: "id", value: id }]))}`,
      );
      expect(persons.status, `${id}: ${persons.text}`).toBe(400);
      envelope(persons);
      const res = await funnel(id);
      // ClickHouse binds every key as a parameter: the statement D1 refuses runs there.
      if (onClickHouse && id === broken.tooLong) expect(res.status, res.text).toBe(200);
      else {
        expect(res.status, `${id}: ${res.text}`).toBe(400);
        envelope(res);
      }
    }
  });
});
