import type { ClickHouseClient } from "@clickhouse/client-web";
import type { EventName, PropertyKeySeen, PropertyKeysQuery } from "../queries";
import { iso } from "../../lib/time/iso";
import { analysisRows } from "./analysis-run";
import { ClickHouseParams } from "./params";

/** A project's event names (by name) and when each was last seen. */
export async function eventNamesOnClickHouse(
  client: ClickHouseClient,
  projectId: number,
  limit: number,
): Promise<EventName[]> {
  const params = new ClickHouseParams(projectId);
  const rows = await analysisRows<{ name: string; lastSeen: number }>(
    client,
    `SELECT event AS name, toUnixTimestamp64Milli(max(timestamp)) AS lastSeen FROM events
      WHERE team_id = ${params.team} GROUP BY event ORDER BY event LIMIT ${params.bind(limit, "UInt64")}`,
    params,
  );
  // As D1 stores times: ISO 8601 with milliseconds.
  return rows.map((r) => ({ name: r.name, lastSeen: iso(Number(r.lastSeen)) }));
}

/** The type of a raw JSON value as a property definition's type (as D1's definitions.ts). */
const kindOf = (raw: string) =>
  `multiIf(${raw} IN ('true', 'false'), 'Boolean', match(${raw}, '^-?[0-9]'), 'Numeric',` +
  ` match(${raw}, '^"[0-9]{4}-[0-1][0-9]-[0-3][0-9]'), 'DateTime', startsWith(${raw}, '"'), 'String', NULL)`;

/** The property keys of the latest sampled events, with each value type's count. */
export async function eventPropertyKeysOnClickHouse(
  client: ClickHouseClient,
  query: PropertyKeysQuery,
): Promise<PropertyKeySeen[]> {
  const params = new ClickHouseParams(query.projectId);
  const byName = query.eventNames?.length ? ` AND event IN ${params.bind(query.eventNames, "Array(String)")}` : "";
  const rows = await analysisRows<PropertyKeySeen>(
    client,
    `SELECT kv.1 AS key, ${kindOf("kv.2")} AS kind, count() AS events
      FROM (SELECT properties FROM events WHERE team_id = ${params.team}${byName} ORDER BY timestamp DESC LIMIT ${params.bind(query.sample, "UInt64")})
      ARRAY JOIN JSONExtractKeysAndValuesRaw(properties) AS kv
      GROUP BY key, kind`,
    params,
  );
  return rows.map((r) => ({ key: r.key, kind: r.kind, events: Number(r.events) }));
}
