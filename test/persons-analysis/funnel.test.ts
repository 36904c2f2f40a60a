import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, createProject, envelope } from "../helpers";
import { expected, personWith, type SeededPerson, uuidsOf } from "./fixtures";

/**
 * Hand-built sequences for a funnel A → B → C over January 2024 (UTC project, 14-day window).
 * Each person's expected step count per order type is worked out next to their events.
 */
let projectId: number;
const p: Record<string, SeededPerson> = {};
const STEPS = JSON.stringify([
  { id: "A", type: "events", order: 0 },
  { id: "B", type: "events", order: 1 },
  { id: "C", type: "events", order: 2 },
]);
const RANGE = "date_from=2024-01-01&date_to=2024-01-31";

beforeAll(async () => {
  projectId = (await createProject()).id;
  const ch = { $browser: "Chrome" };
  const ff = { $browser: "Firefox" };
  // ordered 3, strict 3, unordered 3
  p.full = await personWith(
    projectId,
    [
      ["A", "2024-01-02T10:00:00Z", ch],
      ["B", "2024-01-02T11:00:00Z"],
      ["C", "2024-01-02T12:00:00Z"],
    ],
    { properties: { plan: "pro" } },
  );
  // ordered 2, strict 2, unordered 2
  p.two = await personWith(
    projectId,
    [
      ["A", "2024-01-03T10:00:00Z", ff],
      ["B", "2024-01-04T10:00:00Z"],
    ],
    { properties: { plan: "free" } },
  );
  // 1 everywhere
  p.one = await personWith(projectId, [["A", "2024-01-05T10:00:00Z", ch]]);
  // B before A: ordered 1, strict 1, unordered 2
  p.reversed = await personWith(projectId, [
    ["B", "2024-01-05T10:00:00Z"],
    ["A", "2024-01-06T10:00:00Z", ff],
  ]);
  // B exactly 14 days after A is inside the window; C 1 ms later is not: 2 everywhere
  p.edge = await personWith(projectId, [
    ["A", "2024-01-01T00:00:00.000Z"],
    ["B", "2024-01-15T00:00:00.000Z"],
    ["C", "2024-01-15T00:00:00.001Z"],
  ]);
  // another event between A and B: ordered 2, strict 1, unordered 2
  p.interrupted = await personWith(projectId, [
    ["A", "2024-01-10T10:00:00Z"],
    ["X", "2024-01-10T10:01:00Z"],
    ["B", "2024-01-10T10:02:00Z"],
  ]);
  // A and B share a timestamp: ordered 2, strict 2, unordered 2
  p.tied = await personWith(projectId, [
    ["A", "2024-01-11T10:00:00Z"],
    ["B", "2024-01-11T10:00:00Z"],
  ]);
  // the first attempt times out, the second converts to B: best attempt 2 everywhere
  p.retry = await personWith(projectId, [
    ["A", "2024-01-01T09:00:00Z"],
    ["A", "2024-01-18T09:00:00Z"],
    ["B", "2024-01-20T09:00:00Z"],
  ]);
  // A before the range: not in ordered/strict funnels; unordered counts B alone (1)
  p.early = await personWith(projectId, [
    ["A", "2023-12-31T10:00:00Z"],
    ["B", "2024-01-02T10:00:00Z"],
  ]);
});

const funnel = async (query: string) => {
  const res = await call(
    `/api/environments/${projectId}/persons/funnel/?events=${encodeURIComponent(STEPS)}&${RANGE}&${query}`,
  );
  expect(res.status, res.text).toBe(200);
  return res.json;
};

describe("funnel actors: ordered", () => {
  it("funnel_step N lists persons who reached step N or further", async () => {
    expect(uuidsOf(await funnel("funnel_step=1"))).toEqual(
      expected(p.full, p.two, p.one, p.reversed, p.edge, p.interrupted, p.tied, p.retry),
    );
    expect(uuidsOf(await funnel("funnel_step=2"))).toEqual(
      expected(p.full, p.two, p.edge, p.interrupted, p.tied, p.retry),
    );
    expect(uuidsOf(await funnel("funnel_step=3"))).toEqual(expected(p.full));
  });

  it("funnel_step -N lists persons who reached step N-1 but not step N", async () => {
    expect(uuidsOf(await funnel("funnel_step=-2"))).toEqual(expected(p.one, p.reversed));
    expect(uuidsOf(await funnel("funnel_step=-3"))).toEqual(expected(p.two, p.edge, p.interrupted, p.tied, p.retry));
    const minusOne = await call(
      `/api/environments/${projectId}/persons/funnel/?events=${encodeURIComponent(STEPS)}&${RANGE}&funnel_step=-1`,
    );
    expect(minusOne.status).toBe(400);
    expect(envelope(minusOne).detail).toMatch(/^The first valid drop-off argument for funnelStep is -2/);
  });

  it("funnel_custom_steps selects persons whose furthest step is listed", async () => {
    expect(uuidsOf(await funnel(`funnel_custom_steps=${encodeURIComponent("[1,3]")}`))).toEqual(
      expected(p.full, p.one, p.reversed),
    );
  });

  it("answers PostHog's envelope with list-shaped persons", async () => {
    const body = await funnel("funnel_step=3");
    expect(Object.keys(body)).toEqual(["results", "next", "initial", "missing_persons", "is_cached", "last_refresh"]);
    expect(body.next).toBeNull();
    expect(body.missing_persons).toBe(0);
    expect(body.results[0].count).toBe(1);
    const person = body.results[0].people[0];
    expect(person).toMatchObject({
      type: "person",
      id: p.full.uuid,
      uuid: p.full.uuid,
      is_identified: true,
      properties: { plan: "pro" },
    });
    expect(person.distinct_ids).toEqual([p.full.distinctId]);
    expect(person.matched_recordings).toEqual([]);
    expect(person.value_at_data_point).toBeNull();
  });

  it("measures the conversion window from step 1, inclusive", async () => {
    // A 1-day window: edge's B (14 days later) and retry's B (2 days after the second A) drop out.
    expect(uuidsOf(await funnel("funnel_step=2&funnel_window_interval=1&funnel_window_interval_unit=day"))).toEqual(
      expected(p.full, p.two, p.interrupted, p.tied),
    );
    // Exactly 1 hour from A to B still converts; 2 hours from A to C does not.
    expect(uuidsOf(await funnel("funnel_step=3&funnel_window_interval=1&funnel_window_interval_unit=hour"))).toEqual(
      [],
    );
    expect(
      uuidsOf(await funnel("funnel_step=3&funnel_window_interval=120&funnel_window_interval_unit=minute")),
    ).toEqual(expected(p.full));
  });

  it("pages with limit/offset and a next link", async () => {
    const seen: string[] = [];
    let body = await funnel("funnel_step=1&limit=3");
    expect(body.results[0].count).toBe(3);
    seen.push(...uuidsOf(body));
    while (body.next) {
      const res = await call(body.next.replace("http://edgehog.test", ""));
      body = res.json;
      seen.push(...uuidsOf(body));
    }
    expect(seen.sort()).toEqual(expected(p.full, p.two, p.one, p.reversed, p.edge, p.interrupted, p.tied, p.retry));
  });

  it("takes the same filter as a JSON body on POST", async () => {
    const res = await call(`/api/environments/${projectId}/persons/funnel/`, {
      method: "POST",
      body: { events: JSON.parse(STEPS), date_from: "2024-01-01", date_to: "2024-01-31", funnel_step: 3 },
    });
    expect(res.status, res.text).toBe(200);
    expect(uuidsOf(res.json)).toEqual(expected(p.full));
  });
});

describe("funnel actors: strict and unordered", () => {
  it("strict: the next event of the person must be the next step", async () => {
    expect(uuidsOf(await funnel("funnel_order_type=strict&funnel_step=2"))).toEqual(
      expected(p.full, p.two, p.edge, p.tied, p.retry),
    );
    expect(uuidsOf(await funnel("funnel_order_type=strict&funnel_step=-2"))).toEqual(
      expected(p.one, p.reversed, p.interrupted),
    );
  });

  it("unordered: steps in any order within the window", async () => {
    expect(uuidsOf(await funnel("funnel_order_type=unordered&funnel_step=2"))).toEqual(
      expected(p.full, p.two, p.reversed, p.edge, p.interrupted, p.tied, p.retry),
    );
    expect(uuidsOf(await funnel("funnel_order_type=unordered&funnel_step=-2"))).toEqual(expected(p.one, p.early));
    expect(uuidsOf(await funnel("funnel_order_type=unordered&funnel_step=3"))).toEqual(expected(p.full));
  });
});

describe("funnel actors: filters and breakdowns", () => {
  it("applies step property filters", async () => {
    const steps = JSON.stringify([
      {
        id: "A",
        type: "events",
        order: 0,
        properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }],
      },
      { id: "B", type: "events", order: 1 },
    ]);
    const res = await call(
      `/api/environments/${projectId}/persons/funnel/?events=${encodeURIComponent(steps)}&${RANGE}&funnel_step=1`,
    );
    expect(uuidsOf(res.json)).toEqual(expected(p.full, p.one));
  });

  it("applies global person property filters", async () => {
    const props = JSON.stringify([{ key: "plan", value: "free", type: "person" }]);
    expect(uuidsOf(await funnel(`funnel_step=1&properties=${encodeURIComponent(props)}`))).toEqual(expected(p.two));
  });

  it("applies every operator of the shared property matcher, and cohort filters", async () => {
    const icontains = JSON.stringify([{ key: "$browser", value: "chro", operator: "icontains", type: "event" }]);
    // A global event filter applies to every step: only A events carry $browser, so nobody passes step 1.
    expect(uuidsOf(await funnel(`funnel_step=1&properties=${encodeURIComponent(icontains)}`))).toEqual(
      expected(p.full, p.one),
    );
    expect(uuidsOf(await funnel(`funnel_step=2&properties=${encodeURIComponent(icontains)}`))).toEqual([]);
    const dynamic = await call(`/api/projects/${projectId}/cohorts/`, {
      method: "POST",
      body: {
        name: "free",
        filters: { properties: { type: "AND", values: [{ key: "plan", value: "free", type: "person" }] } },
      },
    });
    const picked = await call(`/api/projects/${projectId}/cohorts/`, {
      method: "POST",
      body: { name: "picked", is_static: true, person_ids: [p.tied.id, p.retry.id] },
    });
    expect([dynamic.status, picked.status]).toEqual([201, 201]);
    const inCohort = (id: number) => encodeURIComponent(JSON.stringify([{ type: "cohort", key: "id", value: id }]));
    expect(uuidsOf(await funnel(`funnel_step=2&properties=${inCohort(dynamic.json.id)}`))).toEqual(expected(p.two));
    expect(uuidsOf(await funnel(`funnel_step=2&properties=${inCohort(picked.json.id)}`))).toEqual(
      expected(p.tied, p.retry),
    );
  });

  it("breaks down by the first step event's property (first touch)", async () => {
    expect(uuidsOf(await funnel("funnel_step=1&breakdown=$browser&funnel_step_breakdown=Chrome"))).toEqual(
      expected(p.full, p.one),
    );
    expect(
      uuidsOf(await funnel("funnel_step=2&breakdown=%5B%22%24browser%22%5D&funnel_step_breakdown=Firefox")),
    ).toEqual(expected(p.two));
    // No value on any step event: the empty breakdown value.
    expect(uuidsOf(await funnel("funnel_step=3&breakdown=$browser&funnel_step_breakdown=%22%22"))).toEqual([]);
    expect(uuidsOf(await funnel("funnel_step=2&breakdown=$browser&funnel_step_breakdown="))).toEqual(
      expected(p.full, p.two, p.edge, p.interrupted, p.tied, p.retry),
    );
    // A one-property list without a value is `[""]`, which `""` selects (PostHog's breakdown_cases.py nulls case).
    expect(
      uuidsOf(await funnel("funnel_step=2&breakdown=%5B%22%24browser%22%5D&funnel_step_breakdown=%22%22")),
    ).toEqual(expected(p.edge, p.interrupted, p.tied, p.retry));
  });

  it("breaks down by a person property", async () => {
    expect(
      uuidsOf(await funnel("funnel_step=1&breakdown=plan&breakdown_type=person&funnel_step_breakdown=pro")),
    ).toEqual(expected(p.full));
  });
});

describe("funnel actors: list breakdowns and custom steps", () => {
  let other: number;
  const q: Record<string, SeededPerson> = {};
  beforeAll(async () => {
    other = (await createProject()).id;
    q.chrome95 = await personWith(
      other,
      [
        ["A", "2024-01-02T10:00:00Z", { $browser: "Chrome", $browser_version: 95 }],
        ["B", "2024-01-02T11:00:00Z"],
      ],
      {
        properties: { plan: "pro" },
      },
    );
    q.chrome96 = await personWith(other, [
      ["A", "2024-01-02T10:00:00Z", { $browser: "Chrome", $browser_version: "96" }],
      ["B", "2024-01-02T11:00:00Z"],
    ]);
    // The first step event with any of the properties set gives the whole list: ["Firefox", ""].
    q.firefox = await personWith(other, [
      ["A", "2024-01-02T10:00:00Z", { $browser: "Firefox" }],
      ["B", "2024-01-02T11:00:00Z", { $browser_version: 95 }],
    ]);
    // No step event has either property: one empty text per property, as PostHog's `['', '']`.
    q.none = await personWith(other, [
      ["A", "2024-01-02T10:00:00Z"],
      ["B", "2024-01-02T11:00:00Z"],
    ]);
    q.stopped = await personWith(other, [["A", "2024-01-03T10:00:00Z", { $browser: "Chrome", $browser_version: 95 }]]);
  });
  const drill = async (query: string) => {
    const res = await call(
      `/api/environments/${other}/persons/funnel/?events=${encodeURIComponent(STEPS)}&${RANGE}&${query}`,
    );
    expect(res.status, res.text).toBe(200);
    return uuidsOf(res.json);
  };
  const list = (value: unknown) =>
    `breakdown=${encodeURIComponent('["$browser","$browser_version"]')}&funnel_step_breakdown=${encodeURIComponent(JSON.stringify(value))}`;

  it("selects persons by the list of values, numbers compared as text", async () => {
    expect(await drill(`funnel_step=2&${list(["Chrome", "95"])}`)).toEqual(expected(q.chrome95));
    expect(await drill(`funnel_step=1&${list(["Chrome", 95])}`)).toEqual(expected(q.chrome95, q.stopped));
    expect(await drill(`funnel_step=2&${list(["Chrome", "96"])}`)).toEqual(expected(q.chrome96));
    expect(await drill(`funnel_step=2&${list(["Firefox", ""])}`)).toEqual(expected(q.firefox));
    expect(await drill(`funnel_step=2&${list(["", ""])}`)).toEqual(expected(q.none));
    expect(await drill(`funnel_step=2&${list([])}`)).toEqual([]);
    expect(await drill(`funnel_step=2&${list(["Chrome"])}`)).toEqual([]);
    // A number on its own is cut to an integer, as PostHog's str(int(value)).
    expect(await drill("funnel_step=2&breakdown=$browser_version&funnel_step_breakdown=95.7")).toEqual(
      expected(q.chrome95, q.firefox),
    );
  });

  it("breaks down by a list of person properties, empty texts when none is set", async () => {
    const persons = (value: unknown) =>
      drill(
        `funnel_step=2&breakdown_type=person&breakdown=${encodeURIComponent('["plan","tier"]')}&funnel_step_breakdown=${encodeURIComponent(JSON.stringify(value))}`,
      );
    expect(await persons(["pro", ""])).toEqual(expected(q.chrome95));
    expect(await persons(["", ""])).toEqual(expected(q.chrome96, q.firefox, q.none));
    expect(await persons([])).toEqual([]);
  });

  it("lets funnel_custom_steps win over funnel_step, as PostHog does", async () => {
    const custom = (steps: unknown) => `funnel_custom_steps=${encodeURIComponent(JSON.stringify(steps))}`;
    expect(await drill(`funnel_step=2&${custom([1])}`)).toEqual(expected(q.stopped));
    // An empty list leaves the choice to funnel_step.
    expect(await drill(`funnel_step=-2&${custom([])}`)).toEqual(expected(q.stopped));
  });
});

describe("funnel actors: errors and access", () => {
  it("refuses actions, bad steps, dates and JSON in the envelope", async () => {
    const actions = await call(
      `/api/environments/${projectId}/persons/funnel/?actions=${encodeURIComponent('[{"id":1,"type":"actions"}]')}&funnel_step=1`,
    );
    expect(actions.status).toBe(400);
    expect(envelope(actions).detail).toMatch(/Actions are not supported/);
    const step0 = await call(
      `/api/environments/${projectId}/persons/funnel/?events=${encodeURIComponent(STEPS)}&funnel_step=0`,
    );
    expect(envelope(step0).attr).toBe("funnel_step");
    const badDate = await call(
      `/api/environments/${projectId}/persons/funnel/?events=${encodeURIComponent(STEPS)}&funnel_step=1&date_from=yesterday`,
    );
    expect(envelope(badDate).attr).toBe("date_from");
    const badJson = await call(`/api/environments/${projectId}/persons/funnel/?events=[oops&funnel_step=1`);
    expect(badJson.status).toBe(400);
    expect(envelope(badJson).attr).toBe("events");
  });

  it("accepts a personal key with person:read under both prefixes", async () => {
    const key = await createKey(["person:read"]);
    const res = await call(
      `/api/projects/${projectId}/persons/funnel?events=${encodeURIComponent(STEPS)}&${RANGE}&funnel_step=3`,
      { key },
    );
    expect(res.status, res.text).toBe(200);
    expect(uuidsOf(res.json)).toEqual(expected(p.full));
  });
});
