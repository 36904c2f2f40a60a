import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { noClickHouseCohorts } from "../../../src/analytics/clickhouse/cohorts";
import { personsListStatement } from "../../../src/analytics/clickhouse/persons-list";
import { parseProperties } from "../../../src/persons/properties-param";
import { call, createProject } from "../../helpers";
import { capture, everyone, personsPath } from "../../persons/helpers";
import { clickhouse } from "./client";

// The persons list on a ClickHouse deployment: a search or a filter finds its page in the persons
// mirror, and D1 (the authority) gives the rows, dropping any the mirror has not caught up with.
// The persons suites (test/persons/, run here too) check that the answers equal D1's after every
// kind of write; this file checks what only the mirror path has.

type Listed = { uuid: string; distinct_ids: string[]; properties: Record<string, unknown> };

async function list(projectId: number, query: string) {
  const res = await call(`${personsPath(projectId)}?${query}`);
  expect(res.status, res.text).toBe(200);
  return res.json as { count: number; next: string | null; results: Listed[] };
}

const pro = `properties=${encodeURIComponent(JSON.stringify([{ key: "plan", value: "pro", type: "person" }]))}`;

/** Changes D1 alone, as a write whose mirror rows are still in the events queue would leave it. */
const inD1Only = (statement: string, ...values: unknown[]) =>
  env.DB.prepare(statement)
    .bind(...values)
    .run();

describe("persons list from the ClickHouse mirror", () => {
  it("finds the page in the mirror and shows each person as D1 holds them now", async () => {
    const { id: projectId, api_token: token } = await createProject();
    await capture(
      token,
      ["a", "b", "c", "d"].map((name) => ({
        event: "x",
        distinct_id: name,
        properties: { $set: { plan: "pro", name } },
      })),
    );
    const listed = (await list(projectId, pro)).results;
    expect(listed.map((p) => p.distinct_ids[0])).toEqual(["d", "c", "b", "a"]);
    const [d, c, b] = listed;

    // Changed in D1 but not yet in the mirror: the mirror's page holds them, D1 decides.
    await inD1Only(`UPDATE persons SET properties = json_set(properties, '$.plan', 'free') WHERE uuid = ?`, c.uuid);
    await inD1Only(`UPDATE persons SET properties = json_set(properties, '$.name', 'renamed') WHERE uuid = ?`, b.uuid);
    await inD1Only("DELETE FROM persons WHERE uuid = ?", d.uuid);
    // Created in D1 with no mirror row yet: only the mirror's persons are candidates.
    await inD1Only(
      `INSERT INTO persons (project_id, uuid, properties, created_at) VALUES (?, ?, '{"plan":"pro"}', ?)`,
      projectId,
      crypto.randomUUID(),
      new Date(Date.now() + 60_000).toISOString(),
    );

    const now = await list(projectId, pro);
    expect(now.results.map((p) => p.distinct_ids[0])).toEqual(["b", "a"]);
    expect(now.results[0].properties).toMatchObject({ name: "renamed" });
    // The count is the mirror's (4) until it catches up; the unfiltered list reads D1 alone.
    expect(now.count).toBe(4);
    expect((await everyone(projectId)).map((p) => p.properties.plan)).toEqual(["pro", "free", "pro", "pro"]);
  });

  it("searches as D1 does: SQLite's text of the email and name, ASCII case folded, no wildcards", async () => {
    const { id: projectId, api_token: token } = await createProject();
    await capture(token, [
      { event: "x", distinct_id: "numeric", properties: { $set: { email: 1234567 } } },
      { event: "x", distinct_id: "accented", properties: { $set: { name: "ÉMILE Zola" } } },
      { event: "x", distinct_id: "percent", properties: { $set: { name: "50% off_now" } } },
      { event: "x", distinct_id: "nothing", properties: { $set: { email: null } } },
      { event: "x", distinct_id: "both", properties: { $set: { email: "left", name: "right" } } },
    ]);
    const found = async (term: string) =>
      (await list(projectId, `search=${encodeURIComponent(term)}`)).results.map((p) => p.distinct_ids[0]);
    expect(await found("34567")).toEqual(["numeric"]);
    // SQLite's lower() and ClickHouse's positionCaseInsensitive fold ASCII letters only.
    expect(await found("émile")).toEqual([]);
    expect(await found("ÉMILE zOLA")).toEqual(["accented"]);
    expect(await found("% off_")).toEqual(["percent"]);
    expect(await found("%_")).toEqual([]);
    expect(await found("null")).toEqual([]);
    expect(await found("accen")).toEqual(["accented"]);
    // The email and name are searched apart: a term spanning the two (the mirror joins them with a NUL) finds nobody.
    const spanning = await list(projectId, `search=${encodeURIComponent("left\u0000right")}`);
    expect([spanning.count, spanning.results.length]).toEqual([0, 0]);
    expect(await found("t\u0000")).toEqual([]);
  });

  it("pages in D1's order, newest first then highest id, through next", async () => {
    const { id: projectId, api_token: token } = await createProject();
    // One request: its persons share a creation time in D1, so the id breaks the tie.
    await capture(
      token,
      Array.from({ length: 7 }, (_, i) => ({
        event: "x",
        distinct_id: `p${i}`,
        properties: { $set: { plan: "pro" } },
      })),
    );
    await capture(token, [{ event: "x", distinct_id: "later", properties: { $set: { plan: "pro" } } }]);
    const want = (await everyone(projectId)).map((p) => p.uuid);
    const seen: string[] = [];
    let path: string | null = `${personsPath(projectId)}?limit=3&${pro}`;
    while (path) {
      const res = await call(path.replace(/^https?:\/\/[^/]+/, ""));
      expect(res.status).toBe(200);
      expect(res.json.count).toBe(8);
      seen.push(...res.json.results.map((p: Listed) => p.uuid));
      path = res.json.next;
    }
    expect(seen).toEqual(want);
  });

  it("reads the property hashes rather than the JSON, and a rare value only where its index may be", async () => {
    const { id: projectId } = await createProject();
    // Four granules or more of mirrored persons (8192 rows each), one `n` per person.
    await clickhouse().command({
      query: `INSERT INTO person (id, d1_id, team_id, created_at, properties, is_identified, version)
        SELECT generateUUIDv4(number), number + 1, {team:Int64}, now64(6), concat('{"n":', toString(number), '}'), 0, 0
        FROM numbers(30000)`,
      query_params: { team: projectId },
    });
    const question = (filters: unknown[]) => ({
      projectId,
      filter: parseProperties(JSON.stringify(filters)),
      rows: { limit: 100, offset: 0 },
    });
    const rare = personsListStatement(question([{ key: "n", value: 4242, type: "person" }]), noClickHouseCohorts);
    expect(rare.sql).not.toMatch(/JSONExtract|JSONType/);
    const explained = await clickhouse().query({
      query: `EXPLAIN indexes = 1 ${rare.sql}`,
      query_params: rare.params.values,
      format: "TabSeparatedRaw",
    });
    const plan = await explained.text();
    const [, read, all] = /Name: person_property_values[\s\S]*?Granules: (\d+)\/(\d+)/.exec(plan) ?? [];
    // One granule of the four or five (the insert may land in two parts) may hold n = 4242.
    expect(Number(all), plan).toBeGreaterThanOrEqual(4);
    expect(Number(read), plan).toBe(1);
    const [answer] = await (
      await clickhouse().query({ query: rare.sql, query_params: rare.params.values, format: "JSONEachRow" })
    ).json<{ total: string | number; page: number[] }>();
    expect(Number(answer.total)).toBe(1);
    expect(answer.page.map(Number)).toEqual([4243]);
    // A deep page (here past 1,000 kept matches) counts and sorts apart, with the same answer as one pass.
    const deep = question([{ key: "n", operator: "gt", value: 100, type: "person" }]);
    deep.rows = { limit: 100, offset: 25_000 };
    const answers = await Promise.all(
      [
        personsListStatement(deep, noClickHouseCohorts),
        personsListStatement(deep, noClickHouseCohorts, undefined, 1_000),
      ].map(
        async (s) =>
          (
            await (
              await clickhouse().query({ query: s.sql, query_params: s.params.values, format: "JSONEachRow" })
            ).json<{
              total: string | number;
              page: number[];
            }>()
          )[0],
      ),
    );
    expect(answers[1].page.map(Number)).toEqual(answers[0].page.map(Number));
    expect(Number(answers[1].total)).toBe(Number(answers[0].total));
    expect([Number(answers[0].total), answers[0].page.length]).toEqual([29_899, 101]);
    // Only a term that could be in a uuid's text (hexadecimal digits, dashes) reads the uuids as text.
    const search = (term: string) =>
      personsListStatement({ projectId, search: term, rows: question([]).rows }, noClickHouseCohorts).sql;
    expect(search("user4242")).not.toContain("toString(id)");
    expect(search("4242-ab")).toContain("toString(id)");
    // Distinct ids through a LIKE their trigram index answers (escaped, ASCII-lowered), not a function it cannot.
    expect(search("User_42")).toContain("lower(distinct_id) LIKE");
    // Without the holders asked first, the statement finds them itself, and answers the same.
    const alone = personsListStatement({ projectId, search: "no-such", rows: question([]).rows }, noClickHouseCohorts);
    const [none] = await (
      await clickhouse().query({ query: alone.sql, query_params: alone.params.values, format: "JSONEachRow" })
    ).json<{ total: string | number }>();
    expect(Number(none.total)).toBe(0);
  });
});
