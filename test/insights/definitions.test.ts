import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, createProject, envelope } from "../helpers";
import { captureJourneys } from "../conformance/analysis-helpers";

let project: { id: number; api_token: string };

beforeAll(async () => {
  project = await createProject();
  await captureJourneys(
    project.api_token,
    {
      ann: [
        {
          event: "$pageview",
          timestamp: "2024-03-01T10:00:00Z",
          properties: { $browser: "Chrome", $current_url: "https://a/" },
        },
        { event: "signed up", timestamp: "2024-03-02T10:00:00Z", properties: { plan: "pro", seats: 3, trial: true } },
      ],
      bob: [
        {
          event: "$pageview",
          timestamp: "2024-03-05T10:00:00Z",
          properties: { $browser: "Firefox", "$feature/beta": true },
        },
      ],
    },
    { ann: { email: "ann@example.com", signed_up_at: "2024-03-02T10:00:00Z", age: 31 } },
  );
});

const list = async (path: string) => {
  const res = await call(`/api/projects/${project.id}/${path}`);
  expect(res.status, res.text).toBe(200);
  return res.json;
};

describe("event and property definitions", () => {
  it("lists the event names, latest seen first, with stable ids", async () => {
    const body = await list("event_definitions/");
    expect(body.results.map((e: any) => [e.name, e.last_seen_at?.slice(0, 10)])).toEqual([
      ["$pageview", "2024-03-05"],
      ["signed up", "2024-03-02"],
    ]);
    expect(body.count).toBe(2);
    expect(body.results[0].id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect((await list("event_definitions/")).results[0].id).toBe(body.results[0].id);
    expect((await list("event_definitions/?search=SIGN")).results.map((e: any) => e.name)).toEqual(["signed up"]);
    expect((await list("event_definitions/?event_type=event_posthog")).results.map((e: any) => e.name)).toEqual([
      "$pageview",
    ]);
    const paged = await list("event_definitions/?limit=1");
    expect(paged.results).toHaveLength(1);
    expect(paged.next).toMatch(/^http.*offset=1/);
  });

  it("lists event properties with their types, those of the asked events first", async () => {
    const all = await list("property_definitions/?type=event&exclude_core_properties=true");
    expect(all.results.map((p: any) => [p.name, p.property_type])).toEqual([
      ["plan", "String"],
      ["seats", "Numeric"],
      ["trial", "Boolean"],
    ]);
    const pageviews = await list(
      `property_definitions/?type=event&event_names=${encodeURIComponent('["$pageview"]')}&filter_by_event_names=true&is_feature_flag=false`,
    );
    expect(pageviews.results.map((p: any) => [p.name, p.is_seen_on_filtered_events])).toEqual([
      ["$browser", true],
      ["$current_url", true],
    ]);
    const mixed = await list(
      `property_definitions/?type=event&event_names=${encodeURIComponent('["signed up"]')}&search=a`,
    );
    expect(mixed.results.map((p: any) => [p.name, p.is_seen_on_filtered_events])).toEqual([
      ["plan", true],
      ["seats", true],
      ["trial", true],
      ["$feature/beta", false],
    ]);
  });

  it("lists person properties", async () => {
    const body = await list("property_definitions/?type=person");
    expect(body.results.map((p: any) => [p.name, p.property_type, p.is_numerical])).toEqual([
      ["age", "Numeric", true],
      ["email", "String", false],
      ["signed_up_at", "DateTime", false],
    ]);
  });

  it("needs the definitions' scopes and refuses what it does not list", async () => {
    const key = await createKey(["query:read"], [project.id]);
    const refused = await call(`/api/projects/${project.id}/event_definitions/`, { key });
    expect(refused.status).toBe(403);
    expect(envelope(refused).detail).toMatch(/event_definition:read/);
    const group = await call(`/api/projects/${project.id}/property_definitions/?type=group`);
    expect(group.status).toBe(400);
    expect(envelope(group).attr).toBe("type");
    const names = await call(
      `/api/projects/${project.id}/property_definitions/?type=person&event_names=${encodeURIComponent('["x"]')}`,
    );
    expect(envelope(names).attr).toBe("event_names");
    const malformed = await call(`/api/projects/${project.id}/property_definitions/?event_names=%5Bnope`);
    expect(malformed.status).toBe(400);
    expect(envelope(malformed).attr).toBe("event_names");
  });
});
