import { TEAM_PARAM } from "../../hogql/clickhouse/sql";
import type { RowWindow } from "../queries";
import type { ClickHouseParams } from "./params";

/**
 * Each person's latest version in the mirror (argMax by version), deleted ones included: a deleted
 * person's row keeps no properties, so it reads as having none, as on D1 where its row is gone, and
 * `is_deleted` says so (its created_at stays).
 * `d1_id` is the person's D1 row id: the key and the order of the views' answers.
 */
export const LATEST_PERSONS =
  "SELECT id, argMax(d1_id, version) AS d1_id, argMax(properties, version) AS properties," +
  " toUnixTimestamp64Micro(argMax(created_at, version)) AS created_at, argMax(is_deleted, version) AS is_deleted" +
  ` FROM person WHERE team_id = ${TEAM_PARAM} GROUP BY id`;

/**
 * One page of the persons `source` selects (a subquery with the persons' uuids as `pid`), as D1 ids
 * in D1's order (by id), which is how every D1 view answers and pages.
 */
export function personPage(source: string, rows: RowWindow, params: ClickHouseParams): string {
  return (
    `SELECT argMax(d1_id, version) AS d1_id FROM person WHERE team_id = ${TEAM_PARAM} AND id IN (SELECT pid FROM ${source})` +
    ` GROUP BY id ORDER BY d1_id LIMIT ${params.bind(rows.limit, "UInt64")} OFFSET ${params.bind(rows.offset, "UInt64")}`
  );
}

/**
 * One page of the persons `source` selects (`pid` and the `columns` kept with each), as D1 ids with
 * those columns: in D1's order (by id), or by `order` (an expression of the columns), then by id.
 */
export function personRowsPage(
  source: string,
  columns: string[],
  rows: RowWindow,
  params: ClickHouseParams,
  order?: string,
): string {
  // Joined to the D1 id of every person of the team, so the source runs once (an IN on it would run it again).
  const ids = `SELECT id, argMax(d1_id, version) AS d1_id FROM person WHERE team_id = ${TEAM_PARAM} GROUP BY id`;
  return (
    `SELECT p.d1_id AS d1_id, ${columns.map((c) => `s.${c} AS ${c}`).join(", ")}` +
    ` FROM ${source} AS s INNER JOIN (${ids}) AS p ON p.id = s.pid` +
    ` ORDER BY ${order ? `${order}, d1_id` : "d1_id"}` +
    ` LIMIT ${params.bind(rows.limit, "UInt64")} OFFSET ${params.bind(rows.offset, "UInt64")}`
  );
}
