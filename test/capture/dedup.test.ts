import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, createProject } from "../helpers";

let project: { id: number; api_token: string };

beforeAll(async () => {
  project = await createProject();
});

const send = (batch: Record<string, unknown>[]) =>
  exports.default.fetch(
    new Request(`${BASE}/batch/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ api_key: project.api_token, batch }),
    }),
  );

describe("event de-duplication by uuid", () => {
  it("stores each event once when the same batch is sent four times in parallel", async () => {
    const batch = Array.from({ length: 50 }, (_, i) => ({
      uuid: crypto.randomUUID(),
      event: "retried",
      distinct_id: `retry-${i % 5}`,
      properties: { i, $set: { n: i } },
    }));
    const statuses = (await Promise.all([1, 2, 3, 4].map(() => send(batch)))).map((r) => r.status);
    expect(statuses).toEqual([200, 200, 200, 200]);
    const rows = await env.DB.prepare(
      "SELECT uuid, count(*) AS n FROM events WHERE project_id = ? AND event = 'retried' GROUP BY uuid",
    )
      .bind(project.id)
      .all<{ uuid: string; n: number }>();
    expect(rows.results).toHaveLength(50);
    expect(rows.results.every((r) => r.n === 1)).toBe(true);
  });

  it("a uuid repeated inside one batch is stored once", async () => {
    const uuid = crypto.randomUUID();
    const res = await send([
      { uuid, event: "twice", distinct_id: "same" },
      { uuid, event: "twice", distinct_id: "same" },
    ]);
    expect(res.status).toBe(200);
    const row = await env.DB.prepare("SELECT count(*) AS n FROM events WHERE project_id = ? AND uuid = ?")
      .bind(project.id, uuid)
      .first<{ n: number }>();
    expect(row!.n).toBe(1);
  });

  it("the database itself refuses a second event with the same uuid in a project", async () => {
    const uuid = crypto.randomUUID();
    const insert = () =>
      env.DB.prepare(
        "INSERT INTO events (project_id, uuid, event, distinct_id, timestamp) VALUES (?, ?, 'direct', 'd', '2026-01-01T00:00:00.000Z')",
      )
        .bind(project.id, uuid)
        .run();
    await insert();
    await expect(insert()).rejects.toThrow(/UNIQUE/);
  });
});
