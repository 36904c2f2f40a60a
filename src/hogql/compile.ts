import type { CompiledPlan } from "../db/schema";
import type { Node } from "./ast";
import { parseHogQLWith, takeTopLevelWindow } from "./parse";
import { hogqlParser } from "./parser";
import { COMPILER_VERSION, compileMaterialization } from "./plan";
import { Printer } from "./printer";

export { DEFAULT_LIMIT, MAX_LIMIT } from "./limits";
export { COMPILER_VERSION } from "./plan";

/**
 * What a version stores in `endpoint_versions.compiled` (the column's type, declared with the
 * schema, which may import nothing of ours); a run only binds and executes it.
 */
export type CompiledQuery = CompiledPlan;

/** Parses HogQL with PostHog's grammar; a syntax error or a refused construct throws HogQLError. */
export async function parseHogQL(text: string): Promise<Node> {
  return parseHogQLWith(await hogqlParser(), text);
}

/** Compiles HogQL to SQLite for D1 (see clickhouse/compile.ts for ClickHouse). Refusals throw HogQLError. */
export async function compileHogQL(text: string): Promise<CompiledQuery> {
  const ast = await parseHogQL(text);
  const { query: top, limit, offset } = takeTopLevelWindow(ast);
  const printer = new Printer(text, ast);
  const printed = printer.query(top);
  const n = printer.variables.length;
  const tail = `LIMIT ?${n + 2} OFFSET ?${n + 3}`;
  const sql = top.node === "SelectQuery" ? `${printed.sql} ${tail}` : `SELECT * FROM (${printed.sql}) ${tail}`;
  return {
    compiler: COMPILER_VERSION,
    engine: "d1",
    sql,
    variables: printer.variables,
    lists: [...printer.listVariables],
    limit,
    offset,
    columns: printed.columns,
    // Read in pages (`?2`, `?3`): the Durable Object enforces its row cap (materialized-table.ts).
    materialization: compileMaterialization(
      ast,
      (query) => `${new Printer(text, query).query(query).sql} LIMIT ?2 OFFSET ?3`,
    ),
  };
}
