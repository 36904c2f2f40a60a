import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { compileHogQL } from "../../src/hogql/compile";
import { HogQLError } from "../../src/hogql/errors";
import { createProject } from "../helpers";
import { seed } from "../endpoints/fixtures";
import { CASE_GROUPS, OTHER_DATA, PROJECT_DATA, type QueryCase } from "./cases";

// The construct cases (./cases.ts) on D1; test/clickhouse/hogql.test.ts runs the same on ClickHouse.

let project: number;
let other: number;

/** Compiles and runs a query for `project`, returning rows as objects. */
async function run(text: string, variables: Record<string, unknown> = {}, projectId = project) {
  const compiled = await compileHogQL(text);
  const limit = compiled.limit ?? 100;
  const params = [projectId, ...compiled.variables.map((v) => variables[v] ?? null), limit, compiled.offset];
  const { results } = await env.DB.prepare(compiled.sql)
    .bind(...params)
    .all();
  return results;
}

async function refused(text: string) {
  try {
    await compileHogQL(text);
  } catch (error) {
    expect(error).toBeInstanceOf(HogQLError);
    return (error as Error).message;
  }
  throw new Error(`compiled: ${text}`);
}

async function check(c: QueryCase) {
  const rows = await run(c.query, c.variables, c.other ? other : project);
  if (c.columns) expect(Object.keys(rows[0]), c.query).toEqual(c.columns);
  else expect(rows, c.query).toEqual(c.rows);
}

beforeAll(async () => {
  project = (await createProject()).id;
  other = (await createProject()).id;
  await seed(project, PROJECT_DATA);
  await seed(other, OTHER_DATA);
});

describe("HogQL compiled to SQLite", () => {
  for (const group of CASE_GROUPS) {
    it(group.name, async () => {
      for (const c of group.cases) await check(c);
      for (const r of group.refusals ?? []) expect(await refused(r.query), r.query).toMatch(r.message);
    });
  }

  it("binds variables as positional parameters, never as text", async () => {
    const compiled = await compileHogQL("select {variables.a} as a, {variables.b} as b, {variables.a} as again");
    expect(compiled.variables).toEqual(["a", "b"]);
    expect(compiled.sql).not.toContain("variables");
  });
});
