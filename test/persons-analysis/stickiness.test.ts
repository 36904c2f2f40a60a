import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject, envelope } from "../helpers";
import { expected, personWith, type SeededPerson, uuidsOf } from "./fixtures";

/** A project in Asia/Tokyo (UTC+9): local days start at 15:00 UTC the day before. */
let projectId: number;
const p: Record<string, SeededPerson> = {};
const RANGE = "date_from=2024-02-01&date_to=2024-02-07";

beforeAll(async () => {
  projectId = (await createProject(undefined, "Asia/Tokyo")).id;
  // Local days 02-01, 02-02 (twice), 02-05: 3 days.
  p.three = await personWith(projectId, [
    ["pageview", "2024-02-01T01:00:00Z"],
    ["pageview", "2024-02-02T01:00:00Z"],
    ["pageview", "2024-02-02T05:00:00Z"],
    ["pageview", "2024-02-05T01:00:00Z"],
  ]);
  // One UTC day, two local days (02-02 23:00 and 02-03 01:00 JST).
  p.two = await personWith(projectId, [
    ["pageview", "2024-02-02T14:00:00Z"],
    ["pageview", "2024-02-02T16:00:00Z"],
  ]);
  // Local 02-03, 02-04, 02-06: 3 days; plus other events that do not count.
  p.alsoThree = await personWith(projectId, [
    ["pageview", "2024-02-03T01:00:00Z"],
    ["pageview", "2024-02-04T01:00:00Z"],
    ["pageview", "2024-02-06T01:00:00Z"],
    ["signup", "2024-02-07T01:00:00Z"],
  ]);
  // Every local day of the range.
  p.daily = await personWith(
    projectId,
    [1, 2, 3, 4, 5, 6, 7].map(
      (d) => ["pageview", `2024-02-0${d}T03:00:00Z`, { plan: "pro" }] as [string, string, Record<string, unknown>],
    ),
  );
  // 01-31 22:00 JST (before the range) and 02-08 00:30 JST (after it): nothing in range.
  p.outside = await personWith(projectId, [
    ["pageview", "2024-01-31T13:00:00Z"],
    ["pageview", "2024-02-07T15:30:00Z"],
  ]);
});

const stickiness = async (query: string) => {
  const res = await call(
    `/api/environments/${projectId}/persons/stickiness/?entity_id=pageview&entity_type=events&${RANGE}&${query}`,
  );
  expect(res.status, res.text).toBe(200);
  return res.json;
};

describe("stickiness actors", () => {
  it("lists persons active in exactly N local days", async () => {
    expect(uuidsOf(await stickiness("stickiness_days=3"))).toEqual(expected(p.three, p.alsoThree));
    expect(uuidsOf(await stickiness("stickiness_days=2"))).toEqual(expected(p.two));
    expect(uuidsOf(await stickiness("stickiness_days=7"))).toEqual(expected(p.daily));
    expect(uuidsOf(await stickiness("stickiness_days=1"))).toEqual([]);
  });

  it("counts weeks with interval=week", async () => {
    // Local weeks (Sunday start) of 01-28 and 02-04: three has 02-01/02 and 02-05 → 2; two → 1.
    expect(uuidsOf(await stickiness("stickiness_days=1&interval=week"))).toEqual(expected(p.two));
    expect(uuidsOf(await stickiness("stickiness_days=2&interval=week"))).toEqual(
      expected(p.three, p.alsoThree, p.daily),
    );
  });

  it("starts weeks on Monday when the project's week_start_day says so", async () => {
    const project = await createProject(undefined, "Asia/Tokyo");
    // Local Sunday 02-04 and Monday 02-05: one week starting Sunday, two starting Monday.
    const sunMon = await personWith(project.id, [
      ["pageview", "2024-02-04T01:00:00Z"],
      ["pageview", "2024-02-05T01:00:00Z"],
    ]);
    const weeks = async (n: number) => {
      const res = await call(
        `/api/environments/${project.id}/persons/stickiness/?entity_id=pageview&entity_type=events&${RANGE}&interval=week&stickiness_days=${n}`,
      );
      expect(res.status, res.text).toBe(200);
      return uuidsOf(res.json);
    };
    expect(await weeks(1)).toEqual(expected(sunMon));
    const patched = await call(`/api/projects/${project.id}/`, { method: "PATCH", body: { week_start_day: 1 } });
    expect(patched.json.week_start_day).toBe(1);
    expect(await weeks(2)).toEqual(expected(sunMon));
    expect(await weeks(1)).toEqual([]);
  });

  it("applies entity properties from the events list and global properties", async () => {
    const events = encodeURIComponent(
      JSON.stringify([{ id: "pageview", type: "events", properties: [{ key: "plan", value: "pro" }] }]),
    );
    expect(uuidsOf(await stickiness(`stickiness_days=7&events=${events}`))).toEqual(expected(p.daily));
    expect(uuidsOf(await stickiness(`stickiness_days=3&events=${events}`))).toEqual([]);
    const props = encodeURIComponent(JSON.stringify([{ key: "plan", value: "pro", type: "event" }]));
    expect(uuidsOf(await stickiness(`stickiness_days=3&properties=${props}`))).toEqual([]);
  });

  it("refuses a missing entity or stickiness_days", async () => {
    const noEntity = await call(`/api/environments/${projectId}/persons/stickiness/?stickiness_days=1`);
    expect(noEntity.status).toBe(400);
    expect(envelope(noEntity).detail).toBe("An entity id and the entity type must be provided to determine an entity");
    const actions = await call(
      `/api/environments/${projectId}/persons/stickiness/?entity_id=3&entity_type=actions&stickiness_days=1`,
    );
    expect(envelope(actions).detail).toMatch(/Actions are not supported/);
    const noDays = await call(
      `/api/environments/${projectId}/persons/stickiness/?entity_id=pageview&entity_type=events`,
    );
    expect(envelope(noDays).attr).toBe("stickiness_days");
  });
});
