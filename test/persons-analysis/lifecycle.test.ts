import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject, envelope } from "../helpers";
import { expected, personWith, type SeededPerson, uuidsOf } from "./fixtures";

/**
 * A project in America/New_York (UTC-5, UTC-4 from 2024-03-10 02:00 local). Days are local days,
 * so several events below fall on a different day in UTC than in the project's zone.
 */
let projectId: number;
const p: Record<string, SeededPerson> = {};
const SERIES = encodeURIComponent(JSON.stringify([{ id: "pageview", type: "events", order: 0 }]));
const OLD = { createdAt: "2024-01-01T12:00:00.000Z" };

beforeAll(async () => {
  projectId = (await createProject(undefined, "America/New_York")).id;
  // Created on 03-08 local, first active 03-08 16:00 local: new on 03-08.
  p.fresh = await personWith(projectId, [["pageview", "2024-03-08T21:00:00Z"]], {
    createdAt: "2024-03-08T20:00:00.000Z",
  });
  // 03-07 23:30 and 03-08 00:30 local (both 03-08 in UTC): returning on 03-08.
  p.returning = await personWith(
    projectId,
    [
      ["pageview", "2024-03-08T04:30:00Z"],
      ["pageview", "2024-03-08T05:30:00Z"],
    ],
    OLD,
  );
  // Active 03-05 and 03-08 local, not 03-07: resurrecting on 03-08.
  p.back = await personWith(
    projectId,
    [
      ["pageview", "2024-03-05T15:00:00Z"],
      ["pageview", "2024-03-08T15:00:00Z"],
    ],
    OLD,
  );
  // Active 03-07 local only: dormant on 03-08.
  p.dormant = await personWith(projectId, [["pageview", "2024-03-07T17:00:00Z"]], OLD);
  // 03-08 23:59:59.999 local (03-09 in UTC): active on 03-08 only; resurrecting there.
  p.lastMs = await personWith(projectId, [["pageview", "2024-03-09T04:59:59.999Z"]], OLD);
  // Created 03-08 but already active 03-06: not new on 03-08 (not its first active day), resurrecting.
  p.early = await personWith(
    projectId,
    [
      ["pageview", "2024-03-06T15:00:00Z"],
      ["pageview", "2024-03-08T15:00:00Z"],
    ],
    { createdAt: "2024-03-08T14:00:00.000Z" },
  );
  // A different event does not count.
  p.other = await personWith(projectId, [["signup", "2024-03-08T15:00:00Z"]], {
    createdAt: "2024-03-08T14:00:00.000Z",
  });
  // Across the DST change: 03-09 23:30 EST, 03-10 08:00 EDT, 03-11 00:30 EDT.
  p.dst = await personWith(
    projectId,
    [
      ["pageview", "2024-03-10T04:30:00Z"],
      ["pageview", "2024-03-10T12:00:00Z"],
      ["pageview", "2024-03-11T04:30:00Z"],
    ],
    OLD,
  );
});

const lifecycle = async (query: string) => {
  const res = await call(
    `/api/environments/${projectId}/persons/lifecycle/?events=${SERIES}&date_from=2024-03-05&date_to=2024-03-12&${query}`,
  );
  expect(res.status, res.text).toBe(200);
  return res.json;
};

describe("lifecycle actors (daily, non-UTC project)", () => {
  it("classifies each person on a local day", async () => {
    const day = "target_date=2024-03-08";
    expect(uuidsOf(await lifecycle(`${day}&lifecycle_type=new`))).toEqual(expected(p.fresh));
    expect(uuidsOf(await lifecycle(`${day}&lifecycle_type=returning`))).toEqual(expected(p.returning));
    expect(uuidsOf(await lifecycle(`${day}&lifecycle_type=resurrecting`))).toEqual(expected(p.back, p.lastMs, p.early));
    expect(uuidsOf(await lifecycle(`${day}&lifecycle_type=dormant`))).toEqual(expected(p.dormant));
  });

  it("marks everyone active the day before as dormant the next day", async () => {
    const body = await lifecycle("target_date=2024-03-09&lifecycle_type=dormant");
    expect(uuidsOf(body)).toEqual(expected(p.fresh, p.returning, p.back, p.lastMs, p.early));
    expect(Object.keys(body)).toEqual(["results", "next"]);
  });

  it("buckets local days across the DST change", async () => {
    expect(uuidsOf(await lifecycle("target_date=2024-03-10&lifecycle_type=returning"))).toEqual(expected(p.dst));
    expect(uuidsOf(await lifecycle("target_date=2024-03-11&lifecycle_type=returning"))).toEqual(expected(p.dst));
    expect(uuidsOf(await lifecycle("target_date=2024-03-09&lifecycle_type=resurrecting"))).toEqual(expected(p.dst));
  });

  it("uses local weeks starting on Sunday", async () => {
    // Weeks of 03-03 and 03-10; dst is active in both (03-09 local and 03-10/11): returning.
    const res = await call(
      `/api/environments/${projectId}/persons/lifecycle/?events=${SERIES}&interval=week&date_from=2024-03-03&date_to=2024-03-16&target_date=2024-03-10&lifecycle_type=returning`,
    );
    expect(uuidsOf(res.json)).toEqual(expected(p.dst));
  });

  it("returns nobody for a target outside the range", async () => {
    expect(uuidsOf(await lifecycle("target_date=2024-02-01&lifecycle_type=dormant"))).toEqual([]);
  });

  it("refuses a missing target_date or lifecycle_type in the envelope", async () => {
    const noDate = await call(`/api/environments/${projectId}/persons/lifecycle/?events=${SERIES}&lifecycle_type=new`);
    expect(noDate.status).toBe(400);
    expect(envelope(noDate)).toMatchObject({
      type: "validation_error",
      attr: "target_date",
      detail: "Must include specified date",
    });
    const noType = await call(
      `/api/environments/${projectId}/persons/lifecycle/?events=${SERIES}&target_date=2024-03-08`,
    );
    expect(envelope(noType)).toMatchObject({ attr: "lifecycle_type", detail: "Must include lifecycle type" });
    const badType = await call(
      `/api/environments/${projectId}/persons/lifecycle/?events=${SERIES}&target_date=2024-03-08&lifecycle_type=old`,
    );
    expect(envelope(badType).attr).toBe("lifecycle_type");
  });
});
