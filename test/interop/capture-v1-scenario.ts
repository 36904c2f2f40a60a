import { PostHog } from "posthog-node";
import { expect } from "vitest";
import { api, newProject, workerUrl } from "./client";

/**
 * posthog-node 5.70 in Capture V1 mode (POSTHOG_CAPTURE_MODE=v1, read when a client is made), unmodified,
 * against the running worker: capture, identify, alias and $set, then checked through the persons API
 * and a HogQL endpoint's count. Shared by the D1 interop suite and the ClickHouse one (where the events
 * travel through the queue, so the count is polled).
 */
export async function captureV1Scenario() {
  const project = await newProject();
  const paths: string[] = [];
  const errors: unknown[] = [];
  const client = v1Client(project.api_token, paths, errors);

  client.capture({ distinctId: "anon-v1", event: "page viewed", properties: { $set: { first_page: "/pricing" } } });
  client.capture({ distinctId: "anon-v1", event: "signup started" });
  client.capture({ distinctId: "personless-v1", event: "page viewed", properties: { $process_person_profile: false } });
  await client.flush();
  client.identify({ distinctId: "user-v1", properties: { $anon_distinct_id: "anon-v1", email: "v1@example.com" } });
  client.capture({
    distinctId: "user-v1",
    event: "signup finished",
    properties: { $set: { plan: "pro" }, $set_once: { first_plan: "pro" } },
  });
  client.alias({ distinctId: "user-v1", alias: "user-v1-alias" });
  await client.shutdown();
  expect(errors).toEqual([]);
  expect(paths.length).toBeGreaterThan(0);
  expect(new Set(paths)).toEqual(new Set(["/i/v1/analytics/events"]));

  const persons = `/api/environments/${project.id}/persons/`;
  const list = await api(`${persons}?distinct_id=user-v1-alias`);
  expect(list.status).toBe(200);
  expect(list.json.results).toHaveLength(1);
  const person = list.json.results[0];
  expect(person.distinct_ids.sort()).toEqual(["anon-v1", "user-v1", "user-v1-alias"]);
  expect(person.is_identified).toBe(true);
  expect(person.properties).toMatchObject({
    first_page: "/pricing",
    email: "v1@example.com",
    plan: "pro",
    first_plan: "pro",
  });
  expect((await api(`${persons}?distinct_id=personless-v1`)).json.results).toEqual([]);

  const endpoints = `/api/environments/${project.id}/endpoints/`;
  const query = "select event, count() as n, max(properties.$lib) as lib from events group by event order by event";
  const created = await api(endpoints, {
    method: "POST",
    body: { name: "v1_counts", query: { kind: "HogQLQuery", query } },
  });
  expect(created.status).toBe(201);
  const expected = [
    ["$create_alias", 1, "posthog-node"],
    ["$identify", 1, "posthog-node"],
    ["page viewed", 2, "posthog-node"],
    ["signup finished", 1, "posthog-node"],
    ["signup started", 1, "posthog-node"],
  ];
  let rows: unknown[][] = [];
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    const run = await api(`${endpoints}v1_counts/run`, { method: "POST", body: { refresh: "force" } });
    expect(run.status).toBe(200);
    rows = run.json.results.map((r: unknown[]) => [r[0], Number(r[1]), r[2]]);
    if (rows.reduce((n, r) => n + (r[1] as number), 0) >= 6) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  expect(rows).toEqual(expected);
}

/** A posthog-node client in Capture V1 mode whose requests' paths and reported errors are collected. */
function v1Client(token: string, paths: string[], errors: unknown[]): PostHog {
  const previous = process.env.POSTHOG_CAPTURE_MODE;
  process.env.POSTHOG_CAPTURE_MODE = "v1";
  try {
    const client = new PostHog(token, {
      host: workerUrl(),
      flushAt: 1000,
      flushInterval: 0,
      // The client's own fetch, watched: the test fails if the SDK did not speak v1.
      fetch: (url, options) => {
        paths.push(new URL(url).pathname);
        return fetch(url, options);
      },
    });
    client.on("error", (err) => errors.push(err));
    return client;
  } finally {
    if (previous === undefined) delete process.env.POSTHOG_CAPTURE_MODE;
    else process.env.POSTHOG_CAPTURE_MODE = previous;
  }
}

/**
 * The SDK hears of a dropped event under the uuid it sent (here in capitals, as a caller may pass
 * one), and the batch's other events are stored.
 */
export async function captureV1DropScenario() {
  const project = await newProject();
  const errors: unknown[] = [];
  const client = v1Client(project.api_token, [], errors);
  const dropped = crypto.randomUUID().toUpperCase();
  client.capture({ distinctId: "drop-v1", event: "$performance_event", uuid: dropped });
  client.capture({ distinctId: "drop-v1", event: "kept" });
  await client.shutdown();
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatchObject({
    name: "CaptureV1Error",
    drops: [{ uuid: dropped, details: "dropped_performance_event" }],
    retryExhausted: [],
  });
  const list = await api(`/api/environments/${project.id}/persons/?distinct_id=drop-v1`);
  expect(list.json.results).toHaveLength(1);
}
