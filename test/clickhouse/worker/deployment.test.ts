import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { analyticsStore } from "../../../src/analytics";
import { forgetOwnershipChecks } from "../../../src/analytics/clickhouse/deployment";
import { createDb } from "../../../src/db/client";
import type { EndpointMaterializer } from "../../../src/endpoints/materializer";
import type { Env } from "../../../src/env";
import { expireEvents } from "../../../src/scheduled";
import { seed } from "../../endpoints/fixtures";
import { call, createProject } from "../../helpers";
import { clickhouse } from "./client";
import { capture, consume, eventRow, storedEventCount, until } from "./queue-helpers";

// A ClickHouse database belongs to one deployment (src/analytics/clickhouse/deployment.ts). This file's D1 is
// a copy of the deployment the run's ClickHouse database is bound to (setup.ts); giving it another identity
// makes this worker a second deployment (another D1) pointed at the same database, which must be refused on
// every path that reads or writes ClickHouse, while capture keeps what it accepts in the queue.

const workerEnv = env as unknown as Env;
const database = (env as unknown as { CLICKHOUSE_DATABASE: string }).CLICKHOUSE_DATABASE;
const ns = env.ENDPOINT_MATERIALIZER as unknown as DurableObjectNamespace<EndpointMaterializer>;

/** Gives this file's D1 the identity of another deployment (or back its own), as a fresh D1 would have. */
async function becomeDeployment(id: string) {
  await env.DB.prepare("UPDATE deployment SET id = ?").bind(id).run();
}
const own = () => becomeDeployment(env.TEST_DEPLOYMENT_ID);

function expectRefused(res: { status: number; json: any }) {
  expect(res.status, JSON.stringify(res.json)).toBe(500);
  expect(res.json).toMatchObject({ type: "server_error", code: "misconfigured", attr: null });
  expect(res.json.detail).toContain(`"${database}" (CLICKHOUSE_DATABASE) belongs to another deployment`);
  expect(res.json.detail).toContain("--adopt");
}

let project: number;
let personId: number;
const RANGE = "date_from=2026-03-01&date_to=2026-03-07";
const SERIES = encodeURIComponent(JSON.stringify([{ id: "$pageview", type: "events", order: 0 }]));
const STEPS = encodeURIComponent(
  JSON.stringify([
    { id: "$pageview", type: "events", order: 0 },
    { id: "signup", type: "events", order: 1 },
  ]),
);

beforeAll(async () => {
  project = (await createProject("owned")).id;
  await seed(project, {
    persons: [{ distinctIds: ["p1"], properties: { plan: "pro" } }],
    events: [
      { event: "$pageview", distinctId: "p1", timestamp: "2026-03-02T10:00:00.000Z" },
      { event: "signup", distinctId: "p1", timestamp: "2026-03-02T11:00:00.000Z" },
    ],
  });
  const persons = await call(`/api/environments/${project}/persons/`);
  personId = persons.json.results[0].id;
  const created = await call(`/api/environments/${project}/endpoints/`, {
    method: "POST",
    body: { name: "counts", query: { kind: "HogQLQuery", query: "select event, count() from events group by event" } },
  });
  expect(created.status, created.text).toBe(201);
});

afterEach(async () => {
  await own();
  forgetOwnershipChecks();
  vi.restoreAllMocks();
});

describe("a ClickHouse database bound to this deployment", () => {
  it("answers, and checks the binding once per isolate, not on every request", async () => {
    const run = () => call(`/api/environments/${project}/endpoints/counts/run?refresh=force`);
    expect((await run()).status).toBe(200);
    // Another identity in D1 now: the answer kept from the first request still holds, so neither D1 nor
    // ClickHouse was asked again (a per-request check would refuse here).
    await becomeDeployment(crypto.randomUUID());
    expect((await run()).status).toBe(200);
    forgetOwnershipChecks();
    expectRefused(await run());
  });
});

describe("a second deployment (another D1) against the same ClickHouse database", () => {
  it("is refused on HogQL runs, drill-downs and the properties timeline, and logs it once", async () => {
    await becomeDeployment(crypto.randomUUID());
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const base = `/api/environments/${project}`;
    for (const path of [
      `${base}/endpoints/counts/run?refresh=force`,
      `${base}/persons/funnel/?events=${STEPS}&${RANGE}&funnel_step=1`,
      `${base}/persons/lifecycle/?events=${SERIES}&${RANGE}&target_date=2026-03-02&lifecycle_type=new`,
      `${base}/persons/stickiness/?entity_id=%24pageview&entity_type=events&${RANGE}&stickiness_days=1`,
      `${base}/persons/${personId}/properties_timeline/`,
    ])
      expectRefused(await call(path));
    expectRefused(
      await call(`${base}/persons/funnel/correlation/`, {
        method: "POST",
        body: { events: JSON.parse(decodeURIComponent(STEPS)), date_from: "2026-03-01", date_to: "2026-03-07" },
      }),
    );
    const logged = errors.mock.calls.filter((args) => String(args[0]).includes("CLICKHOUSE_DATABASE"));
    expect(logged).toHaveLength(1);
  });

  it("deletes no events of a deleted person, and keeps the person (the request can be repeated)", async () => {
    await becomeDeployment(crypto.randomUUID());
    const base = `/api/environments/${project}/persons`;
    expectRefused(await call(`${base}/${personId}/?delete_events=true`, { method: "DELETE" }));
    expect((await call(`${base}/${personId}/`)).status).toBe(200);
    expect(await storedEventCount(project)).toBe(2);
  });

  it("materializes nothing: the refresh fails saying why, and is retried at the next sync", async () => {
    await becomeDeployment(crypto.randomUUID());
    const created = await call(`/api/environments/${project}/endpoints/`, {
      method: "POST",
      body: {
        name: "materialized",
        is_materialized: true,
        query: { kind: "HogQLQuery", query: "select event, count() as c from events group by event" },
      },
    });
    expect(created.status, created.text).toBe(201);
    const stub = ns.get(ns.idFromName(created.json.id));
    await runDurableObjectAlarm(stub);
    let status = await stub.status(1);
    for (let i = 0; i < 50 && status?.status === "Running"; i++) {
      await new Promise((r) => setTimeout(r, 20));
      status = await stub.status(1);
    }
    expect(status).toMatchObject({ status: "Failed" });
    expect(status!.error).toContain("(CLICKHOUSE_DATABASE) belongs to another deployment");
  });

  it("expires no events: retention stops with the reason", async () => {
    await becomeDeployment(crypto.randomUUID());
    const retention = { ...workerEnv, EVENT_RETENTION_DAYS: "1" } as Env;
    await expect(expireEvents(retention, Date.parse("2026-06-01T00:00:00Z"))).rejects.toThrow(
      /\(CLICKHOUSE_DATABASE\) belongs to another deployment/,
    );
    expect(await storedEventCount(project)).toBe(2);
  });

  it("accepts capture but stores nothing until the database is its own again, then loses nothing", async () => {
    await becomeDeployment(crypto.randomUUID());
    const { id: team, api_token: token } = await createProject("capture while refused");
    await capture("/batch/", {
      api_key: token,
      batch: [{ event: "kept", distinct_id: "c1", timestamp: "2026-03-03T00:00:00.000Z", properties: {} }],
    });
    // The queue delivered the batch to the consumer, which refused it; nothing reached ClickHouse.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await storedEventCount(team)).toBe(0);

    // The operator fixes the setting: the queue's retry of the same messages gets in.
    await own();
    forgetOwnershipChecks();
    await until<{ n: string }>(
      "SELECT count() AS n FROM events WHERE team_id = {team:Int64}",
      { team },
      (rows) => Number(rows[0]?.n) === 1,
      30_000,
    );
  });

  it("has the consumer keep every message for retry", async () => {
    await becomeDeployment(crypto.randomUUID());
    const team = 5_000_000_000 + Math.floor(Math.random() * 1_000_000_000);
    const result = await consume([{ id: "refused-1", body: { events: [eventRow(team)] } }]);
    expect(result.ackAll).toBe(false);
    expect(result.retryBatch).toEqual({ retry: true });
    expect(await storedEventCount(team)).toBe(0);
  });
});

describe("a ClickHouse database bound to no deployment (not migrated since bindings exist)", () => {
  const unbound = `edgehog_unbound_${crypto.randomUUID().replaceAll("-", "")}`;
  beforeAll(async () => {
    await clickhouse().command({ query: `CREATE DATABASE ${unbound}` });
  });
  afterAll(async () => {
    await clickhouse().command({ query: `DROP DATABASE IF EXISTS ${unbound}` });
  });

  it("is refused, saying to run npm run clickhouse:migrate", async () => {
    const there = { ...workerEnv, CLICKHOUSE_DATABASE: unbound } as Env;
    const store = analyticsStore(there, createDb(env.DB));
    const refusal = await store.earliestEvent(project).then(
      () => null,
      (error: unknown) => error as { status: number; code: string; detail: string },
    );
    expect(refusal).toMatchObject({ status: 500, code: "misconfigured" });
    expect(refusal!.detail).toContain(`"${unbound}" (CLICKHOUSE_DATABASE) is not bound to this deployment`);
    expect(refusal!.detail).toContain("npm run clickhouse:migrate");
  });
});
