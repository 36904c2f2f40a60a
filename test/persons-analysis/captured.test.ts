import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject } from "../helpers";
import { capture, personByDistinctId } from "../persons/helpers";

/**
 * End to end through the capture API: an anonymous visitor who signs up and identifies is one
 * person, so the funnel sees their anonymous step 1 and identified step 2 as one attempt.
 */
let project: { id: number; api_token: string };

beforeAll(async () => {
  project = await createProject();
  await capture(project.api_token, [
    { event: "viewed", distinct_id: "anon-1", timestamp: "2024-02-01T10:00:00Z", properties: {} },
    {
      event: "$identify",
      distinct_id: "ann",
      timestamp: "2024-02-01T10:05:00Z",
      properties: { $anon_distinct_id: "anon-1", $set: { email: "ann@example.com" } },
    },
    { event: "bought", distinct_id: "ann", timestamp: "2024-02-01T10:10:00Z", properties: {} },
    { event: "viewed", distinct_id: "bob", timestamp: "2024-02-01T11:00:00Z", properties: {} },
  ]);
});

describe("analysis over captured events", () => {
  it("follows merged persons across their distinct ids", async () => {
    const ann = await personByDistinctId(project.id, "ann");
    const bob = await personByDistinctId(project.id, "bob");
    expect(ann?.distinct_ids.sort()).toEqual(["ann", "anon-1"]);
    const steps = encodeURIComponent(
      JSON.stringify([
        { id: "viewed", type: "events" },
        { id: "bought", type: "events" },
      ]),
    );
    const base = `/api/environments/${project.id}/persons/funnel/?events=${steps}&date_from=2024-02-01&date_to=2024-02-02`;
    const converted = await call(`${base}&funnel_step=2`);
    expect(converted.status, converted.text).toBe(200);
    expect(converted.json.results[0].people.map((p: any) => [p.uuid, p.name])).toEqual([
      [ann!.uuid, "ann@example.com"],
    ]);
    const dropped = await call(`${base}&funnel_step=-2`);
    expect(dropped.json.results[0].people.map((p: any) => p.uuid)).toEqual([bob!.uuid]);
  });
});
