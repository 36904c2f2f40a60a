import type { D1Client } from "../../db/client";
import type { Cell, QueryRows } from "../queries";
import { typesOf } from "../value-types";

/** Runs a HogQL query compiled to SQLite (src/hogql/) on D1, with bound parameters (the SQL text is never built from request values). */
export async function runHogQL(db: D1Client, sql: string, params: Cell[]): Promise<QueryRows> {
  const [columns = [], ...results] = (await db
    .prepare(sql)
    .bind(...params)
    .raw({ columnNames: true })) as [string[], ...Cell[][]];
  return { columns, types: typesOf(columns, results), results };
}
