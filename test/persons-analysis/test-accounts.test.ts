import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject, envelope } from "../helpers";
import { expected, personWith, type SeededPerson, uuidsOf } from "./fixtures";

/**
 * `filter_test_accounts=true` leaves out the persons and events the project's test-account
 * filters match (PostHog's Team.test_account_filters), on every drill-down.
 */
let projectId: number;
const p: Record<string, SeededPerson> = {};
const INTERNAL = [{ key: "email", value: "@internal.example", operator: "not_icontains", type: "person" }];
const STEPS = encodeURIComponent(
  JSON.stringify([
    { id: "A", type: "events" },
    { id: "B", type: "events" },
  ]),
);
const RANGE = "date_from=2024-01-01&date_to=2024-01-31";

beforeAll(async () => {
  projectId = (await createProject()).id;
  p.customer = await personWith(
    projectId,
    [
      ["A", "2024-01-02T10:00:00Z"],
      ["B", "2024-01-02T11:00:00Z"],
    ],
    { properties: { email: "ann@customer.example" }, createdAt: "2024-01-02T10:00:00.000Z" },
  );
  p.staff = await personWith(
    projectId,
    [
      ["A", "2024-01-03T10:00:00Z"],
      ["B", "2024-01-03T11:00:00Z"],
    ],
    { properties: { email: "bob@internal.example" }, createdAt: "2024-01-03T10:00:00.000Z" },
  );
  p.unknown = await personWith(projectId, [["A", "2024-01-04T10:00:00Z"]]);
});

const drill = async (path: string, query: string) => {
  const res = await call(`/api/environments/${projectId}/persons/${path}/?${RANGE}&${query}`);
  expect(res.status, res.text).toBe(200);
  return uuidsOf(res.json);
};

describe("test-account filters", () => {
  it("are a project setting, validated as property filters", async () => {
    const bad = await call(`/api/projects/${projectId}/`, {
      method: "PATCH",
      body: { test_account_filters: [{ value: "x" }] },
    });
    expect(bad.status).toBe(400);
    expect(envelope(bad).attr).toBe("test_account_filters");
    // A project created without settings gets the defaults: UTC, no test-account filters.
    expect((await call(`/api/projects/${projectId}/`)).json).toMatchObject({
      timezone: "UTC",
      test_account_filters: [],
    });
    const set = await call(`/api/projects/${projectId}/`, {
      method: "PATCH",
      body: { test_account_filters: INTERNAL },
    });
    expect(set.status, set.text).toBe(200);
    expect(set.json.test_account_filters).toEqual(INTERNAL);
  });

  it("leave out matching persons on funnel, lifecycle and stickiness drill-downs only when asked", async () => {
    await call(`/api/projects/${projectId}/`, { method: "PATCH", body: { test_account_filters: INTERNAL } });
    const funnel = `events=${STEPS}&funnel_step=1`;
    expect(await drill("funnel", funnel)).toEqual(expected(p.customer, p.staff, p.unknown));
    expect(await drill("funnel", `${funnel}&filter_test_accounts=true`)).toEqual(expected(p.customer, p.unknown));
    expect(await drill("funnel", `${funnel}&filter_test_accounts=false`)).toEqual(
      expected(p.customer, p.staff, p.unknown),
    );
    const combined = encodeURIComponent(JSON.stringify([{ key: "email", operator: "is_set", type: "person" }]));
    expect(await drill("funnel", `${funnel}&filter_test_accounts=true&properties=${combined}`)).toEqual(
      expected(p.customer),
    );
    const stickiness = "entity_id=B&entity_type=events&stickiness_days=1";
    expect(await drill("stickiness", `${stickiness}&filter_test_accounts=true`)).toEqual(expected(p.customer));
    const lifecycle = `events=${encodeURIComponent(JSON.stringify([{ id: "A", type: "events" }]))}&target_date=2024-01-03&lifecycle_type=new`;
    expect(await drill("lifecycle", lifecycle)).toEqual(expected(p.staff));
    expect(await drill("lifecycle", `${lifecycle}&filter_test_accounts=true`)).toEqual([]);
  });
});
