import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, createProject, envelope, gzip } from "../helpers";

let project: { id: number; api_token: string };
beforeAll(async () => {
  project = await createProject();
});

async function post(
  path: string,
  body: BodyInit,
  headers: Record<string, string> = { "content-type": "application/json" },
) {
  const res = await exports.default.fetch(new Request(`${BASE}${path}`, { method: "POST", headers, body }));
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const eventsOf = async (distinctId: string) =>
  (
    await env.DB.prepare("SELECT * FROM events WHERE project_id = ? AND distinct_id = ? ORDER BY id")
      .bind(project.id, distinctId)
      .all<{ uuid: string; event: string; person_id: number | null; properties: string; timestamp: string }>()
  ).results;

describe("capture", () => {
  it("stores a distinct id holding a lone surrogate as U+FFFD, the same person every time", async () => {
    // JSON.stringify writes the lone surrogate as the escape `\ud800`, as a hostile or buggy client may.
    const body = JSON.stringify({
      api_key: project.api_token,
      batch: [{ event: "odd", distinct_id: "\ud800odd", properties: { $set: { n: 1 } } }],
    });
    expect((await post("/batch/", body)).status).toBe(200);
    expect((await post("/batch/", body)).status).toBe(200);
    const events = await eventsOf("\ufffdodd");
    expect(events).toHaveLength(2);
    expect(events[0].person_id).not.toBeNull();
    expect(events[1].person_id).toBe(events[0].person_id);
  });

  it("stores a posthog-node style batch and answers {status: 1}", async () => {
    const res = await post(
      "/batch/",
      JSON.stringify({
        api_key: project.api_token,
        batch: [
          {
            event: "page",
            distinct_id: "b1",
            properties: { a: 1 },
            timestamp: "2024-01-01T00:00:00.000Z",
            uuid: "0190e7a5-0000-7000-8000-000000000001",
          },
          { event: "page", distinct_id: "b1", properties: {} },
        ],
      }),
    );
    expect(res).toEqual({ status: 200, json: { status: 1 } });
    const rows = await eventsOf("b1");
    expect(rows).toHaveLength(2);
    expect(rows[0].uuid).toBe("0190e7a5-0000-7000-8000-000000000001");
    expect(rows[0].timestamp).toBe("2024-01-01T00:00:00.000Z");
    expect(JSON.parse(rows[0].properties)).toEqual({ a: 1 });
    expect(rows[0].person_id).not.toBeNull();
    expect(rows[1].person_id).toBe(rows[0].person_id);
  });

  it("serves every capture path, with and without the trailing slash", async () => {
    for (const path of ["/capture/", "/capture", "/e/", "/e", "/i/v0/e/", "/i/v0/e", "/batch"]) {
      const res = await post(
        path,
        JSON.stringify({ api_key: project.api_token, event: "x", distinct_id: `path${path}` }),
      );
      expect(res.status, path).toBe(200);
      expect(await eventsOf(`path${path}`), path).toHaveLength(1);
    }
  });

  it("accepts gzip by header, by ?compression=gzip-js, and form-encoded base64 data", async () => {
    const body = (id: string) =>
      JSON.stringify([{ event: "z", distinct_id: id, properties: { token: project.api_token } }]);
    expect(
      (await post("/e/", await gzip(body("gz1")), { "content-type": "application/json", "content-encoding": "gzip" }))
        .status,
    ).toBe(200);
    expect(
      (await post("/e/?compression=gzip-js", await gzip(body("gz2")), { "content-type": "text/plain" })).status,
    ).toBe(200);
    const form = new URLSearchParams({ data: btoa(body("form1")) }).toString();
    expect((await post("/e/", form, { "content-type": "application/x-www-form-urlencoded" })).status).toBe(200);
    const formJson = new URLSearchParams({ data: body("form2") }).toString();
    expect((await post("/e/", formJson, { "content-type": "application/x-www-form-urlencoded" })).status).toBe(200);
    for (const id of ["gz1", "gz2", "form1", "form2"]) expect(await eventsOf(id), id).toHaveLength(1);
  });

  it("answers 401 for a missing or unknown token", async () => {
    const missing = await post("/batch/", JSON.stringify({ batch: [{ event: "x", distinct_id: "nokey" }] }));
    expect(missing.status).toBe(401);
    expect(envelope({ json: missing.json }).type).toBe("authentication_error");
    const unknown = await post(
      "/batch/",
      JSON.stringify({ api_key: "phc_nope", batch: [{ event: "x", distinct_id: "nokey" }] }),
    );
    expect(unknown.status).toBe(401);
    expect(await eventsOf("nokey")).toHaveLength(0);
  });

  it("answers 400 for malformed bodies", async () => {
    for (const body of ["{not json", "", JSON.stringify({ api_key: project.api_token, something: 1 }), "42"]) {
      const res = await post("/batch/", body);
      expect(res.status, body).toBe(400);
      envelope({ json: res.json });
    }
    const badGzip = await post("/batch/", "plain", { "content-type": "application/json", "content-encoding": "gzip" });
    expect(badGzip.status).toBe(400);
  });

  it("reports bad events of a batch and keeps the good ones", async () => {
    const res = await post(
      "/batch/",
      JSON.stringify({
        api_key: project.api_token,
        batch: [
          { event: "ok", distinct_id: "mixed" },
          { event: "no id" },
          { distinct_id: "mixed" },
          "nonsense",
          { event: "ok", distinct_id: "mixed", properties: [] },
          { event: "ok2", distinct_id: "mixed" },
        ],
      }),
    );
    expect(res.status).toBe(200);
    expect(res.json.status).toBe(1);
    expect(res.json.rejected.map((r: any) => r.index)).toEqual([1, 2, 3, 4]);
    expect((await eventsOf("mixed")).map((e) => e.event)).toEqual(["ok", "ok2"]);
    const allBad = await post("/batch/", JSON.stringify({ api_key: project.api_token, batch: [{ event: "x" }] }));
    expect(allBad.status).toBe(400);
  });

  it("corrects client clock skew with sent_at, and honours offset", async () => {
    const now = Date.now();
    const skewMs = 3_600_000; // the client clock runs an hour ahead
    const sentAt = new Date(now + skewMs).toISOString();
    const clientTs = new Date(now + skewMs - 60_000).toISOString();
    await post(
      "/batch/",
      JSON.stringify({
        api_key: project.api_token,
        sent_at: sentAt,
        batch: [{ event: "skew", distinct_id: "skew", timestamp: clientTs }],
      }),
    );
    const [skewed] = await eventsOf("skew");
    expect(Math.abs(Date.parse(skewed.timestamp) - (now - 60_000))).toBeLessThan(30_000);
    await post(
      "/capture/",
      JSON.stringify({ api_key: project.api_token, event: "off", distinct_id: "offset", offset: 120_000 }),
    );
    const [offset] = await eventsOf("offset");
    expect(Math.abs(Date.parse(offset.timestamp) - (Date.now() - 120_000))).toBeLessThan(30_000);
    await post(
      "/capture/",
      JSON.stringify({
        api_key: project.api_token,
        event: "future",
        distinct_id: "future",
        timestamp: "2999-01-01T00:00:00Z",
      }),
    );
    const [future] = await eventsOf("future");
    expect(Date.parse(future.timestamp)).toBeLessThan(Date.now() + 60_000);
  });

  it("does not store an event twice when an SDK re-sends its uuid", async () => {
    const event = { event: "dup", distinct_id: "dup", uuid: "0190e7a5-0000-7000-8000-0000000000aa" };
    await post("/batch/", JSON.stringify({ api_key: project.api_token, batch: [event] }));
    await post("/batch/", JSON.stringify({ api_key: project.api_token, batch: [event] }));
    expect(await eventsOf("dup")).toHaveLength(1);
  });

  it("stores 10,000 events sent in concurrent bursts, losing none", async () => {
    const bursts = 20;
    const perBurst = 500;
    const sends = Array.from({ length: bursts }, (_, b) =>
      post(
        "/batch/",
        JSON.stringify({
          api_key: project.api_token,
          batch: Array.from({ length: perBurst }, (_, i) => ({
            event: "burst",
            distinct_id: `burst-${i % 50}`,
            properties: { $set: { n: b } },
          })),
        }),
      ),
    );
    const results = await Promise.all(sends);
    for (const r of results) expect(r.status).toBe(200);
    const row = await env.DB.prepare("SELECT count(*) AS n FROM events WHERE project_id = ? AND event = 'burst'")
      .bind(project.id)
      .first<{ n: number }>();
    expect(row?.n).toBe(bursts * perBurst);
    const persons = await env.DB.prepare(
      "SELECT count(*) AS n FROM person_distinct_ids WHERE project_id = ? AND distinct_id LIKE 'burst-%'",
    )
      .bind(project.id)
      .first<{ n: number }>();
    expect(persons?.n).toBe(50);
  });

  it("accepts bodies above the management limit on capture paths", async () => {
    const big = "x".repeat(2000);
    const batch = Array.from({ length: 800 }, (_, i) => ({ event: "big", distinct_id: "big", properties: { i, big } }));
    const res = await post("/batch/", JSON.stringify({ api_key: project.api_token, batch }));
    expect(res.status).toBe(200);
    expect(await eventsOf("big")).toHaveLength(800);
    const tooBig = await post(
      "/batch",
      JSON.stringify({
        api_key: project.api_token,
        batch: [{ event: "huge", distinct_id: "huge", properties: { x: "y".repeat(21 * 1024 * 1024) } }],
      }),
    );
    expect(tooBig.status).toBe(413);
    expect(await eventsOf("huge")).toHaveLength(0);
  });
});
