import type { HogQLParser } from "@posthog/hogql-parser";
import type { CompiledPlan } from "../../db/schema";
import { parseHogQLWith, takeTopLevelWindow } from "../parse";
import { COMPILER_VERSION, compileMaterialization } from "../plan";
import type { Node } from "../ast";
import { ClickHousePrinter } from "./printer";
import { LIMIT_PARAM, OFFSET_PARAM } from "./sql";
import { VARIABLE_PARAMS, type VariableType } from "./variables";

export interface ClickHouseCompileOptions {
  /**
   * PostHog's parser: in the worker `await hogqlParser()` (hogql/parser.ts, the bundled wasm module),
   * in Node the package's own (`@posthog/hogql-parser`). Handed in, so this module loads in both.
   */
  parser: HogQLParser;
  /** Each variable's InsightVariable type (variables.ts: variableTypeOf for one without); String by default. */
  variableTypes?: Record<string, VariableType>;
}

/**
 * A HogQL query printed as ClickHouse SQL. Its parameters, bound at run time (params.ts):
 * `{team_id:Int64}`, `{timezone:String}` (the project's zone), `{limit:UInt64}`, `{offset:UInt64}`,
 * and `{var_<name>:Type}` for each variable.
 */
export interface ClickHouseQuery {
  sql: string;
  /** HogQL variable names, in order of first use. */
  variables: string[];
  /** Each variable's ClickHouse parameter type, e.g. `Nullable(String)` or `Array(String)` (compared with IN). */
  variableParams: Record<string, string>;
  /** The query's own top-level LIMIT and OFFSET (a run's limit can only lower the LIMIT). */
  limit: number | null;
  offset: number;
  columns: string[] | null;
}

/**
 * Compiles HogQL for ClickHouse from the same parse the SQLite compiler uses (compile.ts): only the
 * catalog's tables, each confined to the project; only the catalog's functions; variables, the
 * project, its time zone, LIMIT and OFFSET as typed query parameters, never as text. Refusals throw
 * HogQLError. Run it with HOGQL_SETTINGS (settings.ts).
 */
export function compileHogQLForClickHouse(text: string, options: ClickHouseCompileOptions): ClickHouseQuery {
  return printQuery(text, parseHogQLWith(options.parser, text), options.variableTypes);
}

function printQuery(
  text: string,
  ast: Node,
  variableTypes: ClickHouseCompileOptions["variableTypes"],
): ClickHouseQuery {
  const { query, limit, offset } = takeTopLevelWindow(ast);
  const printer = new ClickHousePrinter(text, ast, variableTypes);
  const printed = printer.query(query, undefined, undefined, true);
  const tail = `LIMIT ${LIMIT_PARAM} OFFSET ${OFFSET_PARAM}`;
  const sql = query.node === "SelectQuery" ? `${printed.sql} ${tail}` : `SELECT * FROM (${printed.sql}) ${tail}`;
  return {
    sql,
    variables: printer.variables,
    variableParams: printer.variableParams,
    limit,
    offset,
    columns: printed.columns,
  };
}

/**
 * The plan a saved version stores on a ClickHouse deployment (db/schema.ts CompiledPlan): the
 * query, and its materialization transform, which is bound with the project and time zone and
 * read in pages (`{limit}`, `{offset}`).
 */
export function compileClickHousePlan(text: string, options: ClickHouseCompileOptions): CompiledPlan {
  const ast = parseHogQLWith(options.parser, text);
  const query = printQuery(text, ast, options.variableTypes);
  const print = (transformed: Node) =>
    `${new ClickHousePrinter(text, transformed, options.variableTypes).query(transformed, undefined, undefined, true).sql} LIMIT ${LIMIT_PARAM} OFFSET ${OFFSET_PARAM}`;
  return {
    compiler: COMPILER_VERSION,
    engine: "clickhouse",
    sql: query.sql,
    variables: query.variables,
    lists: query.variables.filter((name) => query.variableParams[name] === VARIABLE_PARAMS.List.param),
    variableParams: query.variableParams,
    limit: query.limit,
    offset: query.offset,
    columns: query.columns,
    materialization: compileMaterialization(ast, print),
  };
}
