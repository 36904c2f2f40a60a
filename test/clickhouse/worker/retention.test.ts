import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import { expireEvents } from "../../../src/scheduled";
import { seed } from "../../endpoints/fixtures";
import { createProject } from "../../helpers";
import { clickhouse } from "./client";

const NOW = Date.parse("2026-06-30T12:00:00.000Z");
const daysAgo = (days: number) => new Date(NOW - days * 24 * 60 * 60 * 1000).toISOString();

/** The project's event times in ClickHouse, oldest first, as ISO text. */
async function eventTimes(projectId: number): Promise<string[]> {
  const result = await clickhouse().query({
    query:
      "SELECT formatDateTime(timestamp, '%Y-%m-%dT%H:%i:%S.%fZ', 'UTC') AS t FROM events WHERE team_id = {team:Int64} ORDER BY timestamp",
    query_params: { team: projectId },
    format: "JSONEachRow",
  });
  return (await result.json<{ t: string }>()).map((r) => r.t.replace(/(\.\d{3})\d+Z$/, "$1Z"));
}

describe("event retention on ClickHouse", () => {
  it("deletes every project's events older than the setting in ClickHouse, and keeps the rest", async () => {
    const ages = { a: [400, 90, 31, 29, 1], b: [45, 2] };
    const a = (await createProject()).id;
    const b = (await createProject()).id;
    for (const [id, list] of [
      [a, ages.a],
      [b, ages.b],
    ] as const)
      await seed(id, { events: list.map((age) => ({ event: "e", distinctId: "d", timestamp: daysAgo(age) })) });
    const report = await expireEvents({ ...env, EVENT_RETENTION_DAYS: "30" } as unknown as Env, NOW);
    expect(report).toEqual({ cutoff: daysAgo(30), deleted: 4, more: false });
    expect(await eventTimes(a)).toEqual([daysAgo(29), daysAgo(1)]);
    expect(await eventTimes(b)).toEqual([daysAgo(2)]);
  });
});
