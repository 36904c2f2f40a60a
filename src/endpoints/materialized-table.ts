import { VARIABLE_COLUMN_PREFIX } from "../hogql/materialize";
import { type Cell, type QueryRows, typesOf } from "./execute";

/**
 * A materialized version's rows in the Durable Object's SQLite: `rn` keeps the query's order, `row`
 * holds the output columns as JSON, and `v0`, `v1`, ... the materialized variables' values (indexed),
 * which reads filter on.
 */
const table = (version: number) => `mv_v${Math.trunc(version)}`;

/** Replaces the table with the transformed query's rows; returns the output column names. Call inside a transaction. */
export function writeTable(sql: SqlStorage, version: number, variables: string[], rows: QueryRows): string[] {
  const varIdx = variables.map((v) => rows.columns.indexOf(`${VARIABLE_COLUMN_PREFIX}${v}`));
  const outIdx = rows.columns.map((_, i) => i).filter((i) => !varIdx.includes(i));
  const varCols = varIdx.map((_, i) => `, v${i}`).join("");
  sql.exec(`DROP TABLE IF EXISTS ${table(version)}`);
  sql.exec(`CREATE TABLE ${table(version)} (rn INTEGER PRIMARY KEY, row TEXT NOT NULL${varCols})`);
  if (varIdx.length) sql.exec(`CREATE INDEX ${table(version)}_vars ON ${table(version)} (${varIdx.map((_, i) => `v${i}`).join(", ")}, rn)`);
  const insert = `INSERT INTO ${table(version)} (rn, row${varCols}) VALUES (?, ?${varIdx.map(() => ", ?").join("")})`;
  rows.results.forEach((r, n) => sql.exec(insert, n, JSON.stringify(outIdx.map((i) => r[i])), ...(varIdx.map((i) => r[i]) as SqlStorageValue[])));
  return outIdx.map((i) => rows.columns[i]);
}

/** Rows whose variable columns equal the bound values (null-safe), in the query's order. */
export function readTable(sql: SqlStorage, version: number, columns: string[], values: Cell[], limit: number, offset: number): QueryRows {
  const where = values.map((_, i) => `v${i} IS ?`).join(" AND ");
  const rows = sql
    .exec<{ row: string }>(`SELECT row FROM ${table(version)}${where ? ` WHERE ${where}` : ""} ORDER BY rn LIMIT ? OFFSET ?`, ...(values as SqlStorageValue[]), limit, offset)
    .toArray()
    .map((r) => JSON.parse(r.row) as Cell[]);
  return { columns, types: typesOf(columns, rows), results: rows };
}

export function dropTable(sql: SqlStorage, version: number): void {
  sql.exec(`DROP TABLE IF EXISTS ${table(version)}`);
}
