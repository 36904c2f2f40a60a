import { PostHog } from "posthog-node";
import { beforeAll, describe, expect, it } from "vitest";
import { captureV1DropScenario, captureV1Scenario } from "../../interop/capture-v1-scenario";
import { api, newProject, workerUrl } from "../../interop/client";

/**
 * The acceptance of ClickHouse ingestion with the official Node client, unmodified: what posthog-node
 * captures goes through the events queue into ClickHouse, a HogQL endpoint counts it within seconds, and
 * an $identify merge makes the earlier anonymous events read as the identified person (the overrides).
 */
let project: { id: number; api_token: string };
const endpoints = () => `/api/environments/${project.id}/endpoints/`;

beforeAll(async () => {
  project = await newProject();
});

/** Runs the endpoint (fresh, never cached) until `done` accepts its rows, for up to 30 s. */
async function runUntil(name: string, done: (rows: unknown[][]) => boolean): Promise<unknown[][]> {
  let rows: unknown[][] = [];
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    const res = await api(`${endpoints()}${name}/run`, { method: "POST", body: { refresh: "force" } });
    expect(res.status).toBe(200);
    rows = res.json.results;
    if (done(rows)) return rows;
    await new Promise((r) => setTimeout(r, 500));
  }
  return rows;
}

describe("posthog-node into ClickHouse", () => {
  it("captures are counted by a HogQL endpoint within seconds; $identify merges earlier events through the overrides", async () => {
    const client = new PostHog(project.api_token, { host: workerUrl(), flushAt: 1000, flushInterval: 0 });
    const errors: unknown[] = [];
    client.on("error", (err) => errors.push(err));
    client.capture({ distinctId: "anon-ch-1", event: "page viewed" });
    client.capture({ distinctId: "anon-ch-1", event: "signup started" });
    client.capture({ distinctId: "user-ch-1", event: "page viewed" });
    await client.flush();
    const sent = Date.now();
    for (const [name, query] of [
      ["counts", "select event, count() as n from events group by event order by event"],
      ["people", "select distinct_id, toString(person_id) as person from events order by timestamp, distinct_id"],
    ])
      expect(
        (await api(endpoints(), { method: "POST", body: { name, query: { kind: "HogQLQuery", query } } })).status,
      ).toBe(201);

    const counts = await runUntil("counts", (rows) => rows.reduce((n, r) => n + Number(r[1]), 0) >= 3);
    expect(counts).toEqual([
      ["page viewed", 2],
      ["signup started", 1],
    ]);
    console.log(`posthog-node → queue → ClickHouse → HogQL: counted after ${Date.now() - sent} ms`);

    // Before the merge, each id has a person of its own (the user id's first event made one).
    const before = await runUntil("people", (rows) => rows.length >= 3);
    const personOf = (rows: unknown[][], id: string) => [...new Set(rows.filter((r) => r[0] === id).map((r) => r[1]))];
    const [anonPerson] = personOf(before, "anon-ch-1");
    const [userPerson] = personOf(before, "user-ch-1");
    expect(anonPerson).toBeTruthy();
    expect(userPerson).toBeTruthy();
    expect(anonPerson).not.toBe(userPerson);

    client.identify({
      distinctId: "user-ch-1",
      properties: { $anon_distinct_id: "anon-ch-1", email: "ch@example.com" },
    });
    client.capture({ distinctId: "user-ch-1", event: "signup finished" });
    await client.shutdown();
    expect(errors).toEqual([]);

    const persons = await api(`/api/environments/${project.id}/persons/?distinct_id=user-ch-1`);
    const identified = persons.json.results[0];
    expect(identified.distinct_ids.sort()).toEqual(["anon-ch-1", "user-ch-1"]);

    const after = await runUntil("people", (rows) => rows.length >= 5);
    // Every event of both ids reads as the surviving person, those stored before the merge included: the
    // merged-away person's stored events are never rewritten, its distinct id's override says who they are.
    expect(personOf(after, "anon-ch-1")).toEqual([identified.uuid]);
    expect(personOf(after, "user-ch-1")).toEqual([identified.uuid]);
    expect(after.filter((r) => r[0] === "anon-ch-1")).toHaveLength(2);
  });

  it("in Capture V1 mode: captures, identifies, aliases and sets person properties through the queue", async () => {
    await captureV1Scenario();
  });

  it("in Capture V1 mode: reports a dropped event under the uuid it sent, and stores the others", async () => {
    await captureV1DropScenario();
  });
});
