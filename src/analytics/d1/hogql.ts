import type { D1Client } from "../../db/client";
import type { Cell, HogQLRun, HogQLStatement, QueryRows } from "../queries";
import { typesOf } from "../value-types";

/**
 * Runs a HogQL query compiled to SQLite (src/hogql/) on D1 with its values bound as parameters
 * (the SQL text is never built from request values): `?1` the project, then each variable (booleans
 * as 1/0, a list as one JSON array, read with json_each), then LIMIT and OFFSET.
 */
export async function runHogQL(db: D1Client, statement: HogQLStatement, run: HogQLRun): Promise<QueryRows> {
  const lists = new Set(statement.lists);
  const values = statement.variables.map((name) => bindValue(run.values[name] ?? null, lists.has(name)));
  const [columns = [], ...results] = (await db
    .prepare(statement.sql)
    .bind(run.projectId, ...values, run.limit, run.offset)
    .raw({ columnNames: true })) as [string[], ...Cell[][]];
  return { columns, types: typesOf(columns, results), results };
}

const scalar = (value: unknown) => (typeof value === "boolean" ? Number(value) : value) as Cell;

function bindValue(value: unknown, list: boolean): Cell {
  if (!list) return scalar(value);
  return JSON.stringify((Array.isArray(value) ? value : value === null ? [] : [value]).map(scalar));
}
