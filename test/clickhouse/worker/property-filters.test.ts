import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { LATEST_PERSONS } from "../../../src/analytics/clickhouse/analysis-persons";
import { clickhouseCohorts } from "../../../src/analytics/clickhouse/cohorts";
import { ClickHouseParams } from "../../../src/analytics/clickhouse/params";
import { globToRegex, propertiesSql } from "../../../src/analytics/clickhouse/property-filters";
import { createDb } from "../../../src/db/client";
import { cohortMembershipSql } from "../../../src/shared/cohorts/membership";
import { compileFilterGroup, parseFilterGroup, regexGlobs } from "../../../src/shared/filters";
import { call, createProject } from "../../helpers";
import { seedPerson } from "../../persons-analysis/fixtures";
import { clickhouse } from "./client";

/**
 * The same persons in D1 and in ClickHouse's mirror (the analysis fixtures seed both), every filter
 * evaluated by D1's compiler (src/shared/filters) and by ClickHouse's (src/analytics/clickhouse/):
 * the matched persons must be the same, value kinds and operators across the board.
 */
const PROPERTIES: Record<string, unknown>[] = [
  { v: "Chrome", n: 10, b: true, d: "2024-03-01T10:00:00Z" },
  { v: "chrome mobile", n: 1.5, b: false, d: "2024-03-01" },
  { v: "FIREFOX", n: "  12 ", b: "true", d: "2024-03-02 08:30:00" },
  { v: "Ünïcode chrome", n: "12abc", b: null, d: 1709287200 },
  { v: "", n: -3, d: 1709287200000 },
  { v: null, n: 0, b: 1, d: "not a date" },
  { v: { nested: "Chrome" }, n: [1, 2], d: "2024-03-01T23:59:59+02:00" },
  { v: ["Chrome", "Safari"], n: 1e21 },
  { v: "safari 17.1", n: "1e3", b: "false", d: "2024-02-29" },
  {},
  { v: "a*b?c[d]", n: 12, b: true, d: "2024-03-01T00:00:00.500Z" },
  { v: "line\nbreak", n: "", b: false },
];

const FILTERS: unknown[] = [
  ...["exact", "is_not"].flatMap((operator) => [
    [{ key: "v", value: "Chrome", operator, type: "person" }],
    [{ key: "v", value: ["chrome mobile", ""], operator, type: "person" }],
    [{ key: "b", value: "true", operator, type: "person" }],
    [{ key: "b", value: true, operator, type: "person" }],
    [{ key: "n", value: 10, operator, type: "person" }],
    [{ key: "n", value: "1.5", operator, type: "person" }],
    [{ key: "v", value: '{"nested":"Chrome"}', operator, type: "person" }],
    [{ key: "v", value: '["Chrome","Safari"]', operator, type: "person" }],
  ]),
  [{ key: "v", value: ["Chrome", "FIREFOX"], operator: "in", type: "person" }],
  [{ key: "v", value: ["Chrome"], operator: "not_in", type: "person" }],
  ...["icontains", "not_icontains"].flatMap((operator) => [
    [{ key: "v", value: "chrome", operator, type: "person" }],
    [{ key: "v", value: "ÜNÏ", operator, type: "person" }],
    [{ key: "v", value: "%", operator, type: "person" }],
    [{ key: "v", value: "", operator, type: "person" }],
    [{ key: "n", value: "2", operator, type: "person" }],
  ]),
  ...["regex", "not_regex"].flatMap((operator) => [
    [{ key: "v", value: "^[Cc]hrome", operator, type: "person" }],
    [{ key: "v", value: "fox$", operator, type: "person" }],
    [{ key: "v", value: "\\d{2}\\.\\d", operator, type: "person" }],
    [{ key: "v", value: "a\\*b\\?c\\[d\\]", operator, type: "person" }],
    [{ key: "v", value: "(chrome|safari) ", operator, type: "person" }],
    [{ key: "v", value: "line.break", operator, type: "person" }],
    [{ key: "v", value: "[^a-z]", operator, type: "person" }],
  ]),
  ...["gt", "gte", "lt", "lte"].flatMap((operator) => [
    [{ key: "n", value: 10, operator, type: "person" }],
    [{ key: "n", value: "1.5", operator, type: "person" }],
    [{ key: "n", value: 0, operator, type: "person" }],
    [{ key: "b", value: 0, operator, type: "person" }],
  ]),
  ...["is_set", "is_not_set"].flatMap((operator) => [
    [{ key: "v", operator, type: "person" }],
    [{ key: "b", operator, type: "person" }],
    [{ key: "missing", operator, type: "person" }],
  ]),
  ...["is_date_exact", "is_date_before", "is_date_after"].flatMap((operator) => [
    [{ key: "d", value: "2024-03-01", operator, type: "person" }],
    [{ key: "d", value: "2024-03-01T10:00:00Z", operator, type: "person" }],
    [{ key: "d", value: "2024-03-01 12:00:00", operator, type: "person" }],
  ]),
  {
    type: "OR",
    values: [
      { type: "AND", values: [{ key: "v", value: "chrome", operator: "icontains", type: "person" }] },
      { key: "n", value: 10, operator: "gt", type: "person" },
    ],
  },
  { type: "AND", values: [] },
];

let projectId: number;
const ids: number[] = [];
const cohortIds: Record<string, number> = {};

beforeAll(async () => {
  projectId = (await createProject()).id;
  for (const properties of PROPERTIES) ids.push((await seedPerson(projectId, { properties })).id);
  const cohort = async (body: object) => {
    const res = await call(`/api/projects/${projectId}/cohorts/`, { method: "POST", body });
    expect(res.status, res.text).toBe(201);
    return res.json.id as number;
  };
  cohortIds.chrome = await cohort({
    name: "chrome",
    filters: {
      properties: { type: "AND", values: [{ key: "v", value: "chrome", operator: "icontains", type: "person" }] },
    },
  });
  cohortIds.unset = await cohort({
    name: "no b",
    filters: { properties: { type: "AND", values: [{ key: "b", operator: "is_not_set", type: "person" }] } },
  });
  cohortIds.picked = await cohort({ name: "picked", is_static: true, person_ids: [ids[0], ids[4], ids[9]] });
  cohortIds.nested = await cohort({
    name: "nested",
    filters: {
      properties: {
        type: "OR",
        values: [
          { type: "cohort", key: "id", value: cohortIds.picked },
          { type: "cohort", key: "id", value: cohortIds.unset, negation: true },
        ],
      },
    },
  });
});

async function onD1(filter: unknown): Promise<number[]> {
  const db = createDb(env.DB);
  const where = compileFilterGroup(
    parseFilterGroup(filter, "properties", "person"),
    { personProperties: sql.raw("p.properties"), personId: sql.raw("p.id") },
    await cohortMembershipSql(db, projectId),
  );
  const rows = await db.all<{ id: number }>(
    sql`SELECT p.id AS id FROM persons p WHERE p.project_id = ${projectId} AND ${where} ORDER BY p.id`,
  );
  return rows.map((r) => r.id);
}

async function onClickHouse(filter: unknown): Promise<number[]> {
  const params = new ClickHouseParams(projectId);
  const cohorts = await clickhouseCohorts(createDb(env.DB), projectId);
  const where = propertiesSql(
    filter,
    { event: "'{}'", person: "properties", personId: "id" },
    params,
    "properties",
    cohorts,
  );
  const result = await clickhouse().query({
    query: `SELECT d1_id FROM (${LATEST_PERSONS}) WHERE ${where} ORDER BY d1_id`,
    query_params: params.values,
    format: "JSONEachRow",
  });
  return (await result.json<{ d1_id: string }>()).map((r) => Number(r.d1_id));
}

describe("property filters: ClickHouse matches the persons D1 matches", () => {
  it.each(FILTERS.map((f) => [JSON.stringify(f), f]))("%s", async (_, filter) => {
    expect(await onClickHouse(filter)).toEqual(await onD1(filter));
  });

  it("with cohorts: dynamic, static, nested and negated", async () => {
    for (const [name, id] of Object.entries(cohortIds)) {
      for (const negation of [false, true]) {
        const filter = [{ type: "cohort", key: "id", value: id, negation }];
        expect(await onClickHouse(filter), `${name}${negation ? " (not)" : ""}`).toEqual(await onD1(filter));
      }
    }
  });

  it("refuses what D1 refuses, with the same 400", async () => {
    const bad = [{ key: "v", value: "a+", operator: "regex", type: "person" }];
    const message = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return (err as Error).message;
      }
      return "accepted";
    };
    const params = new ClickHouseParams(projectId);
    const columns = { event: "'{}'", person: "properties", personId: "id" };
    expect(message(() => propertiesSql(bad, columns, params, "properties", () => "0"))).toBe(
      message(() => regexGlobs("a+")),
    );
  });

  it("reads D1's GLOB patterns as anchored regular expressions", () => {
    expect(globToRegex("*a?b[*][^0-9]")).toBe("(?s)^.*a.b[*][^0-9]$");
    expect(globToRegex("x.y(z)")).toBe("(?s)^x\\.y\\(z\\)$");
  });
});
