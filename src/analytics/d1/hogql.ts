import type { D1Client } from "../../db/client";
import type { Cell, QueryRows } from "../queries";

/** Runs a HogQL query compiled to SQLite (src/hogql/) on D1, with bound parameters (the SQL text is never built from request values). */
export async function runHogQL(db: D1Client, sql: string, params: Cell[]): Promise<QueryRows> {
  const [columns = [], ...results] = (await db
    .prepare(sql)
    .bind(...params)
    .raw({ columnNames: true })) as [string[], ...Cell[][]];
  return { columns, types: typesOf(columns, results), results };
}

/** SQLite values carry their own type; name them as PostHog's types do. */
export function typesOf(columns: string[], rows: Cell[][]): [string, string][] {
  return columns.map((name, i) => {
    const sample = rows.find((r) => r[i] !== null && r[i] !== undefined)?.[i];
    const type =
      sample === undefined
        ? "Nullable(Nothing)"
        : typeof sample === "number"
          ? Number.isInteger(sample)
            ? "Int64"
            : "Float64"
          : typeof sample === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(sample)
            ? "DateTime64(3, 'UTC')"
            : typeof sample === "string" && /^\d{4}-\d\d-\d\d$/.test(sample)
              ? "Date"
              : "String";
    return [name, type];
  });
}
