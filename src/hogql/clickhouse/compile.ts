import type { HogQLParser } from "@posthog/hogql-parser";
import { parseHogQLWith, takeTopLevelWindow } from "../parse";
import { ClickHousePrinter } from "./printer";
import { LIMIT_PARAM, OFFSET_PARAM } from "./sql";
import type { VariableType } from "./variables";

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
  const ast = parseHogQLWith(options.parser, text);
  const { query, limit, offset } = takeTopLevelWindow(ast);
  const printer = new ClickHousePrinter(text, ast, options.variableTypes);
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
