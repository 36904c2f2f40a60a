import type { CompiledPlan } from "../db/schema";
import type { Node } from "./ast";
import { HogQLError } from "./errors";
import { materializationTransform } from "./materialize";
import { parseHogQLWith, takeTopLevelWindow } from "./parse";
import { hogqlParser } from "./parser";
import { Printer } from "./printer";

export { DEFAULT_LIMIT, MAX_LIMIT } from "./limits";

/** Bumped whenever the SQL the compiler emits changes: plans saved by an older compiler are recompiled. */
export const COMPILER_VERSION = 3;

/**
 * What a version stores in `endpoint_versions.compiled` (the column's type, declared with the
 * schema, which may import nothing of ours); a run only binds and executes it.
 */
export type CompiledQuery = CompiledPlan;

/** Parses HogQL with PostHog's grammar; a syntax error or a refused construct throws HogQLError. */
export async function parseHogQL(text: string): Promise<Node> {
  return parseHogQLWith(await hogqlParser(), text);
}

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
    sql,
    variables: printer.variables,
    lists: [...printer.listVariables],
    limit,
    offset,
    columns: printed.columns,
    materialization: compileMaterialization(text, ast),
  };
}

function compileMaterialization(text: string, ast: Node): CompiledQuery["materialization"] {
  try {
    const { query, variables, singleRow } = materializationTransform(ast);
    const printer = new Printer(text, query);
    const printed = printer.query(query);
    // No LIMIT: the Durable Object reads it in pages and enforces its row cap (materialized-table.ts).
    return { sql: printed.sql, variables, singleRow };
  } catch (error) {
    if (error instanceof HogQLError) return { reason: error.message };
    throw error;
  }
}
