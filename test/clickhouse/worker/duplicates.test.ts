import { describe, expect, it } from "vitest";
import { call, createProject } from "../../helpers";
import { seedClickHouse } from "../seed";
import { clickhouse } from "./client";

describe("an event stored twice in ClickHouse", () => {
  it("counts once in HogQL before ClickHouse merges the parts (the catalog reads events with FINAL)", async () => {
    const project = (await createProject()).id;
    const event = { uuid: crypto.randomUUID(), event: "e", distinctId: "d", timestamp: "2026-01-01T00:00:00.000Z" };
    // Two inserts, as an SDK retry that landed in another queue batch makes: two parts, one row each,
    // kept apart while the test looks (a background merge would collapse them, which is the point of the engine).
    await clickhouse().command({ query: "SYSTEM STOP MERGES events" });
    try {
      await seedClickHouse(clickhouse(), project, { events: [event] });
      await seedClickHouse(clickhouse(), project, { events: [event] });
      await expectCountedOnce(project);
    } finally {
      await clickhouse().command({ query: "SYSTEM START MERGES events" });
    }
  });
});

async function expectCountedOnce(project: number) {
  const raw = await clickhouse().query({
    query: "SELECT count() AS n FROM events WHERE team_id = {team:Int64}",
    query_params: { team: project },
    format: "JSONEachRow",
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  });
  expect(await raw.json()).toEqual([{ n: 2 }]);
  await call(`/api/environments/${project}/endpoints/`, {
    method: "POST",
    body: { name: "n", query: { kind: "HogQLQuery", query: "select count() as n from events" } },
  });
  const res = await call(`/api/environments/${project}/endpoints/n/run`);
  expect(res.json.results).toEqual([[1]]);
}
