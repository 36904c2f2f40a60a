import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, call, createProject, gzip } from "../helpers";

/** Capture V1 (`/i/v1/analytics/events`) as posthog-node 5.70 sends it with POSTHOG_CAPTURE_MODE=v1. */
let project: { id: number; api_token: string };
beforeAll(async () => {
  project = await createProject();
});

type V1Event = Record<string, unknown>;

const v1Event = (overrides: V1Event = {}): V1Event => ({
  event: "page viewed",
  uuid: crypto.randomUUID(),
  distinct_id: "v1-user",
  timestamp: new Date().toISOString(),
  options: {},
  properties: {},
  ...overrides,
});

/** Posts a V1 batch (or `body` as is) with the headers posthog-node 5.70 sends, to `path`. */
const send = (
  batch: V1Event[] | unknown,
  init: { token?: string | null; headers?: Record<string, string>; body?: BodyInit; path?: string } = {},
) =>
  call(init.path ?? "/i/v1/analytics/events", {
    method: "POST",
    key: init.token === undefined ? project.api_token : init.token,
    headers: {
      "content-type": "application/json",
      "posthog-sdk-info": "posthog-node/5.70.0",
      "posthog-attempt": "1",
      "posthog-request-id": "0190e7a5-0000-7000-8000-00000000abcd",
      "posthog-request-timestamp": new Date().toISOString(),
      ...init.headers,
    },
    rawBody: init.body ?? JSON.stringify({ created_at: new Date().toISOString(), batch }),
  });

const stored = async (uuids: string[]) =>
  (
    await env.DB.prepare(
      `SELECT uuid, event, distinct_id, person_id, properties, timestamp FROM events
       WHERE project_id = ? AND uuid IN (SELECT value FROM json_each(?)) ORDER BY id`,
    )
      .bind(project.id, JSON.stringify(uuids))
      .all<{
        uuid: string;
        event: string;
        distinct_id: string;
        person_id: number | null;
        properties: string;
        timestamp: string;
      }>()
  ).results.map((row) => ({ ...row, properties: JSON.parse(row.properties) }));

describe("capture v1", () => {
  it("stores a batch and answers ok per uuid, in order, with the lifted fields back in the properties", async () => {
    const events = [
      v1Event({
        distinct_id: "v1-a",
        session_id: "s-1",
        window_id: "w-1",
        options: { process_person_profile: true, product_tour_id: 7 },
        properties: { plan: "pro", $set: { email: "a@example.com" }, $set_once: { first: "v1" } },
      }),
      v1Event({ distinct_id: "v1-a", event: "clicked" }),
    ];
    const res = await send(events);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      results: { [events[0].uuid as string]: { result: "ok" }, [events[1].uuid as string]: { result: "ok" } },
    });
    expect(Object.keys(res.json.results)).toEqual(events.map((e) => e.uuid));
    expect(res.headers.get("posthog-request-id")).toBe("0190e7a5-0000-7000-8000-00000000abcd");
    expect(res.headers.get("retry-after")).toBeNull();

    const rows = await stored(events.map((e) => e.uuid as string));
    expect(rows.map((r) => r.event)).toEqual(["page viewed", "clicked"]);
    expect(rows[0].properties).toMatchObject({
      plan: "pro",
      $session_id: "s-1",
      $window_id: "w-1",
      $process_person_profile: true,
      $product_tour_id: "7",
      $lib: "posthog-node",
      $lib_version: "5.70.0",
    });
    expect(rows[0].person_id).not.toBeNull();
    expect(rows[1].person_id).toBe(rows[0].person_id);
    const person = await call(`/api/environments/${project.id}/persons/?distinct_id=v1-a`);
    expect(person.json.results[0].properties).toMatchObject({ email: "a@example.com", first: "v1" });
  });

  it("answers ok for the good events of a mixed batch and drop, with PostHog's reason, for the malformed ones", async () => {
    const good = [v1Event({ distinct_id: "v1-mixed" }), v1Event({ distinct_id: "v1-mixed", event: "second" })];
    const bad: [V1Event, string][] = [
      [v1Event({ event: "$performance_event" }), "dropped_performance_event"],
      [v1Event({ event: "" }), "missing_event_name"],
      [v1Event({ event: 42 }), "missing_event_name"],
      [v1Event({ event: "é".repeat(101) }), "event_name_too_long"],
      [v1Event({ distinct_id: "   " }), "missing_distinct_id"],
      [v1Event({ distinct_id: null }), "missing_distinct_id"],
      [v1Event({ distinct_id: "x".repeat(201) }), "distinct_id_too_large"],
      [v1Event({ timestamp: "yesterday" }), "invalid_event_timestamp"],
      [v1Event({ timestamp: "2026-01-01" }), "invalid_event_timestamp"],
      [v1Event({ properties: [1, 2] }), "malformed_event_properties"],
      [v1Event({ properties: null }), "malformed_event_properties"],
      [v1Event({ options: "yes" }), "invalid_options"],
      [v1Event({ options: { process_person_profile: "maybe" } }), "invalid_options"],
    ];
    const batch = [good[0], ...bad.map(([e]) => e), good[1]];
    const res = await send(batch);
    expect(res.status).toBe(200);
    expect(Object.keys(res.json.results)).toEqual(batch.map((e) => e.uuid));
    expect(res.json.results[good[0].uuid as string]).toEqual({ result: "ok" });
    expect(res.json.results[good[1].uuid as string]).toEqual({ result: "ok" });
    for (const [event, reason] of bad)
      expect(res.json.results[event.uuid as string], reason).toEqual({ result: "drop", details: reason });
    const rows = await stored(batch.map((e) => e.uuid as string));
    expect(rows.map((r) => r.uuid)).toEqual(good.map((e) => e.uuid));
  });

  it("answers 200 with every event dropped when none is valid", async () => {
    const batch = [v1Event({ event: "" }), v1Event({ timestamp: 5 })];
    const res = await send(batch);
    expect(res.status).toBe(200);
    expect(Object.values(res.json.results)).toEqual([
      { result: "drop", details: "missing_event_name" },
      { result: "drop", details: "invalid_event_timestamp" },
    ]);
  });

  it("coerces options as PostHog does: 'false', 0 and booleans", async () => {
    const events = [
      v1Event({ distinct_id: "v1-coerce-1", options: { process_person_profile: "false" } }),
      v1Event({ distinct_id: "v1-coerce-2", options: { process_person_profile: 0 } }),
      v1Event({ distinct_id: "v1-coerce-3", options: { process_person_profile: "1", cookieless_mode: false } }),
    ];
    expect(Object.values((await send(events)).json.results)).toEqual(events.map(() => ({ result: "ok" })));
    const rows = await stored(events.map((e) => e.uuid as string));
    expect(rows.map((r) => r.properties.$process_person_profile)).toEqual([false, false, true]);
    expect(rows[2].properties.$cookieless_mode).toBe(false);
  });

  it("stores personless events without a person (process_person_profile false)", async () => {
    const event = v1Event({ distinct_id: "v1-personless", options: { process_person_profile: false } });
    expect((await send([event])).json.results[event.uuid as string]).toEqual({ result: "ok" });
    const [row] = await stored([event.uuid as string]);
    expect(row.person_id).toBeNull();
    const persons = await call(`/api/environments/${project.id}/persons/?distinct_id=v1-personless`);
    expect(persons.json.results).toEqual([]);
  });

  it("stores a retried request's events once, and keys results by the uuid as sent (the SDK looks it up so)", async () => {
    const upper = crypto.randomUUID().toUpperCase();
    const batch = [
      v1Event({ distinct_id: "v1-retry", uuid: upper, properties: { $set: { visits: 1 } } }),
      v1Event({ distinct_id: "v1-retry", event: "again" }),
    ];
    const first = await send(batch);
    const second = await send(batch, { headers: { "posthog-attempt": "2" } });
    expect(second.json).toEqual(first.json);
    expect(Object.keys(first.json.results)).toEqual([upper, batch[1].uuid]);
    const rows = await stored([upper.toLowerCase(), batch[1].uuid as string]);
    expect(rows.map((r) => r.uuid)).toEqual([upper.toLowerCase(), batch[1].uuid]);
  });

  it("accepts the other uuid forms, stored canonical, and refuses two forms of one uuid", async () => {
    const forms = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const sent = [forms[0].replace(/-/g, ""), `{${forms[1]}}`, `urn:uuid:${forms[2]}`];
    const res = await send(sent.map((uuid) => v1Event({ distinct_id: "v1-forms", uuid })));
    expect(Object.keys(res.json.results)).toEqual(sent);
    expect((await stored(forms)).map((r) => r.uuid)).toEqual(forms);
    const twice = await send([v1Event({ uuid: forms[0] }), v1Event({ uuid: forms[0].toUpperCase() })]);
    expect(twice.status).toBe(400);
    expect(twice.json.code).toBe("duplicate_event_uuid");
  });

  it("takes timestamps as sent without PostHog-Request-Timestamp; null options and non-string session ids are ignored", async () => {
    const at = "2026-03-04T05:06:07.890Z";
    const event = v1Event({ distinct_id: "v1-plain", timestamp: at, options: null, session_id: 42, window_id: null });
    const res = await send(null, {
      body: JSON.stringify({ created_at: new Date().toISOString(), batch: [event] }),
      headers: { "posthog-request-timestamp": "" },
    });
    expect(res.status).toBe(400);
    // Only what the protocol requires: the token and the body.
    const plain = await call("/i/v1/analytics/events", {
      method: "POST",
      key: project.api_token,
      body: { created_at: new Date().toISOString(), batch: [event] },
    });
    expect(plain.json).toEqual({ results: { [event.uuid as string]: { result: "ok" } } });
    const [row] = await stored([event.uuid as string]);
    expect(row.timestamp).toBe(at);
    expect(row.properties).not.toHaveProperty("$session_id");
    expect(row.properties).not.toHaveProperty("$window_id");
    expect(row.properties).not.toHaveProperty("$lib");
  });

  it("counts the 200 limits in bytes: 200 pass, 201 drop", async () => {
    const fits = [
      v1Event({ event: "é".repeat(100), distinct_id: "v1-bytes" }),
      v1Event({ distinct_id: `v1-bytes-${"x".repeat(191)}` }),
    ];
    const over = [
      v1Event({ event: `${"é".repeat(100)}x`, distinct_id: "v1-bytes" }),
      v1Event({ distinct_id: `v1-bytes-${"x".repeat(192)}` }),
    ];
    const res = await send([...fits, ...over]);
    expect(Object.values(res.json.results)).toEqual([
      { result: "ok" },
      { result: "ok" },
      { result: "drop", details: "event_name_too_long" },
      { result: "drop", details: "distinct_id_too_large" },
    ]);
  });

  it("drops only the events whose properties D1 cannot store (nested too deeply), in a batch split until they stand alone", async () => {
    const deep = (depth: number) => JSON.parse("[".repeat(depth) + "]".repeat(depth));
    const batch = Array.from({ length: 9 }, (_, i) =>
      v1Event({ distinct_id: "v1-deep", event: `e${i}`, properties: i === 2 || i === 7 ? { x: deep(1200) } : { i } }),
    );
    const res = await send(batch);
    expect(res.status).toBe(200);
    expect(Object.values(res.json.results)).toEqual(
      batch.map((_, i) =>
        i === 2 || i === 7 ? { result: "drop", details: "malformed_event_properties" } : { result: "ok" },
      ),
    );
    const rows = await stored(batch.map((e) => e.uuid as string));
    expect(rows.map((r) => r.event)).toEqual(["e0", "e1", "e3", "e4", "e5", "e6", "e8"]);
    // /batch/ refuses such a request whole, as a request error.
    const classic = await call("/batch/", {
      method: "POST",
      key: null,
      body: {
        api_key: project.api_token,
        batch: [{ event: "deep", distinct_id: "v1-deep", properties: { x: deep(1200) } }],
      },
    });
    expect(classic.status).toBe(400);
    expect(classic.json).toMatchObject({ code: "json_too_deep" });
  });

  it("corrects the clock skew against PostHog-Request-Timestamp, unless disable_skew_correction", async () => {
    // The SDK's clock runs an hour behind: its timestamps are an hour early.
    const now = Date.now();
    const sdkNow = new Date(now - 3600_000);
    const eventAt = new Date(sdkNow.getTime() - 60_000).toISOString();
    const corrected = v1Event({ distinct_id: "v1-skew", timestamp: eventAt });
    const raw = v1Event({ distinct_id: "v1-skew", timestamp: eventAt, options: { disable_skew_correction: true } });
    const res = await send([corrected, raw], { headers: { "posthog-request-timestamp": sdkNow.toISOString() } });
    expect(Object.values(res.json.results)).toEqual([{ result: "ok" }, { result: "ok" }]);
    const [a, b] = await stored([corrected.uuid as string, raw.uuid as string]);
    expect(Math.abs(Date.parse(a.timestamp) - (now - 60_000))).toBeLessThan(5_000);
    expect(b.timestamp).toBe(eventAt);
    expect(b.properties.$ignore_sent_at).toBe(true);
  });

  it("reads a gzip body (Content-Encoding: gzip), with or without the trailing slash", async () => {
    const event = v1Event({ distinct_id: "v1-gzip" });
    const body = await gzip(JSON.stringify({ created_at: new Date().toISOString(), batch: [event] }));
    const res = await send(null, { body, headers: { "content-encoding": "gzip" }, path: "/i/v1/analytics/events/" });
    expect(res.status).toBe(200);
    expect(res.json.results[event.uuid as string]).toEqual({ result: "ok" });
    expect(await stored([event.uuid as string])).toHaveLength(1);
  });

  it("answers 401 without a valid Bearer project token, whatever the body says", async () => {
    const event = v1Event({ distinct_id: "v1-unauthorized" });
    const missing = await send([event], { token: null });
    expect(missing.status).toBe(401);
    expect(missing.json).toMatchObject({ type: "authentication_error", code: "not_authenticated" });
    const wrong = await send([event], { token: "phc_not_a_project" });
    expect(wrong.status).toBe(401);
    expect(wrong.json.code).toBe("authentication_failed");
    const notBearer = await send([event], { token: null, headers: { authorization: `Basic ${project.api_token}` } });
    expect(notBearer.status).toBe(401);
    const inBody = await send(null, {
      token: null,
      body: JSON.stringify({ api_key: project.api_token, created_at: new Date().toISOString(), batch: [event] }),
    });
    expect(inBody.status).toBe(401);
    expect(await stored([event.uuid as string])).toEqual([]);
  });

  it("refuses a batch it cannot answer per event with a 400, storing nothing", async () => {
    const good = v1Event({ distinct_id: "v1-refused" });
    const now = new Date().toISOString();
    const cases: [unknown, string, string | null][] = [
      [{ created_at: now }, "request_parsing_error", "batch"],
      [{ created_at: now, batch: [] }, "empty_batch", "batch"],
      [{ batch: [good] }, "invalid_batch", "created_at"],
      [{ created_at: "now", batch: [good] }, "invalid_batch", "created_at"],
      [{ created_at: now, batch: [good, "event"] }, "request_parsing_error", "batch"],
      [{ created_at: now, batch: [good, v1Event({ uuid: undefined })] }, "missing_event_uuid", "uuid"],
      [{ created_at: now, batch: [good, v1Event({ uuid: "not-a-uuid" })] }, "invalid_event_uuid", "uuid"],
      [{ created_at: now, batch: [good, { ...good, event: "other" }] }, "duplicate_event_uuid", "uuid"],
      [[good], "request_parsing_error", null],
    ];
    for (const [body, code, attr] of cases) {
      const res = await send(null, { body: JSON.stringify(body) });
      expect(res.status, code).toBe(400);
      expect(res.json, code).toMatchObject({ type: "validation_error", code, attr });
    }
    const badTimestamp = await send([good], { headers: { "posthog-request-timestamp": "soon" } });
    expect(badTimestamp.status).toBe(400);
    expect(badTimestamp.json).toMatchObject({ code: "invalid_header_value", attr: "PostHog-Request-Timestamp" });
    const deepCreatedAt = await send(null, {
      body: `{"created_at":${"[".repeat(100_000)}${"]".repeat(100_000)},"batch":[]}`,
    });
    expect(deepCreatedAt.status).toBe(400);
    expect(deepCreatedAt.json.detail).toBe("invalid batch: created_at is not valid RFC 3339: object");
    const notJson = await send(null, { body: "{nope" });
    expect(notJson.status).toBe(400);
    expect(await stored([good.uuid as string])).toEqual([]);
  });

  it("answers a browser's preflight and call from another origin", async () => {
    const preflight = await exports.default.fetch(
      new Request(`${BASE}/i/v1/analytics/events`, {
        method: "OPTIONS",
        headers: {
          origin: "https://shop.example",
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type, posthog-sdk-info",
        },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("authorization, content-type, posthog-sdk-info");
    const event = v1Event({ distinct_id: "v1-browser" });
    const res = await send([event], { headers: { origin: "https://shop.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://shop.example");
  });
});
