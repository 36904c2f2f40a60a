import { VARIABLE_COLUMN_PREFIX } from "../hogql/materialize";
import type { AnalyticsStore } from "../analytics";
import { typesOf } from "../analytics/value-types";
import type { Cell, QueryRows } from "../analytics/queries";

/**
 * A materialized version's rows in the Durable Object's SQLite: `rn` keeps the query's order, `row`
 * holds the output columns as JSON, and `v0`, `v1`, ... the materialized variables' values (indexed),
 * which reads filter on.
 */
const table = (version: number) => `mv_v${Math.trunc(version)}`;
/** A refresh fills this table page by page; readers keep the previous table until it is swapped in. */
const staging = (version: number) => `mv_v${Math.trunc(version)}_next`;

/** Rows read from the analytics store per query while copying (each page re-runs the query with LIMIT/OFFSET). */
export const MATERIALIZE_PAGE_ROWS = 10_000;
/** A materialized table holds at most this many rows; a larger result fails the refresh. */
export const MAX_MATERIALIZED_ROWS = 200_000;
/** The Durable Object's SQLite binds at most 100 parameters per statement. */
const MAX_PARAMS = 100;

/** The refresh is refused for a reason the caller can read (the result is too large). */
export class TooManyRows extends Error {
  constructor(max: number) {
    super(`The query returns more than ${max} rows, too many to materialize.`);
  }
}

export interface CopySource {
  /** The transformed query, compiled for the store's engine; bound with the project, read in pages by its LIMIT and OFFSET parameters. */
  sql: string;
  projectId: number;
  timezone: string;
  variables: string[];
}

/**
 * Copies the query's rows from the analytics store into the version's staging table, `pageSize` rows per D1 query
 * and per local transaction (multi-row INSERTs), so at most one page is held in memory. Over
 * `maxRows` rows it stops and throws TooManyRows (the staging table is dropped). Returns the output
 * column names; `swapTable` then publishes the copy.
 */
export async function copyToStaging(
  store: AnalyticsStore,
  storage: DurableObjectStorage,
  version: number,
  source: CopySource,
  pageSize = MATERIALIZE_PAGE_ROWS,
  maxRows = MAX_MATERIALIZED_ROWS,
): Promise<{ columns: string[]; rows: number }> {
  const sql = storage.sql;
  const statement = { sql: source.sql, variables: [], lists: [] };
  sql.exec(`DROP TABLE IF EXISTS ${staging(version)}`);
  let layout: { varIdx: number[]; outIdx: number[]; columns: string[] } | null = null;
  let copied = 0;
  try {
    for (;;) {
      // One row past the cap is enough to know it is exceeded.
      const want = Math.min(pageSize, maxRows + 1 - copied);
      const page = await store.runHogQL(statement, {
        projectId: source.projectId,
        timezone: source.timezone,
        values: {},
        limit: want,
        offset: copied,
      });
      if (!layout) {
        layout = layoutOf(source.variables, page);
        const varCols = layout.varIdx.map((_, i) => `, v${i}`).join("");
        sql.exec(`CREATE TABLE ${staging(version)} (rn INTEGER PRIMARY KEY, row TEXT NOT NULL${varCols})`);
      }
      if (copied + page.results.length > maxRows) throw new TooManyRows(maxRows);
      const { varIdx, outIdx } = layout;
      storage.transactionSync(() => insertRows(sql, staging(version), varIdx, outIdx, page.results, copied));
      copied += page.results.length;
      if (page.results.length < want) break;
    }
  } catch (error) {
    sql.exec(`DROP TABLE IF EXISTS ${staging(version)}`);
    throw error;
  }
  return { columns: layout!.columns, rows: copied };
}

function layoutOf(variables: string[], page: QueryRows) {
  const varIdx = variables.map((v) => page.columns.indexOf(`${VARIABLE_COLUMN_PREFIX}${v}`));
  const outIdx = page.columns.map((_, i) => i).filter((i) => !varIdx.includes(i));
  return { varIdx, outIdx, columns: outIdx.map((i) => page.columns[i]) };
}

/** Multi-row INSERTs, as many rows per statement as the parameter limit allows. */
function insertRows(
  sql: SqlStorage,
  name: string,
  varIdx: number[],
  outIdx: number[],
  rows: Cell[][],
  firstRn: number,
) {
  const perRow = 2 + varIdx.length;
  const rowsPerStatement = Math.max(1, Math.floor(MAX_PARAMS / perRow));
  const cols = `rn, row${varIdx.map((_, i) => `, v${i}`).join("")}`;
  const tuple = `(${Array.from({ length: perRow }, () => "?").join(", ")})`;
  for (let start = 0; start < rows.length; start += rowsPerStatement) {
    const chunk = rows.slice(start, start + rowsPerStatement);
    const params = chunk.flatMap((r, i) => [
      firstRn + start + i,
      JSON.stringify(outIdx.map((j) => r[j])),
      ...varIdx.map((j) => r[j]),
    ]);
    sql.exec(
      `INSERT INTO ${name} (${cols}) VALUES ${chunk.map(() => tuple).join(", ")}`,
      ...(params as SqlStorageValue[]),
    );
  }
}

/** Publishes the staging copy as the version's table (call inside a transaction, with the status update). */
export function swapTable(sql: SqlStorage, version: number, variables: number): void {
  sql.exec(`DROP TABLE IF EXISTS ${table(version)}`);
  sql.exec(`ALTER TABLE ${staging(version)} RENAME TO ${table(version)}`);
  if (variables)
    sql.exec(
      `CREATE INDEX IF NOT EXISTS ${table(version)}_vars ON ${table(version)} (${Array.from({ length: variables }, (_, i) => `v${i}`).join(", ")}, rn)`,
    );
}

/** Rows whose variable columns equal the bound values (null-safe), in the query's order. */
export function readTable(
  sql: SqlStorage,
  version: number,
  columns: string[],
  values: Cell[],
  limit: number,
  offset: number,
): QueryRows {
  const where = values.map((_, i) => `v${i} IS ?`).join(" AND ");
  const rows = sql
    .exec<{ row: string }>(
      `SELECT row FROM ${table(version)}${where ? ` WHERE ${where}` : ""} ORDER BY rn LIMIT ? OFFSET ?`,
      ...(values as SqlStorageValue[]),
      limit,
      offset,
    )
    .toArray()
    .map((r) => JSON.parse(r.row) as Cell[]);
  return { columns, types: typesOf(columns, rows), results: rows };
}

export function dropTable(sql: SqlStorage, version: number): void {
  sql.exec(`DROP TABLE IF EXISTS ${table(version)}`);
  sql.exec(`DROP TABLE IF EXISTS ${staging(version)}`);
}
