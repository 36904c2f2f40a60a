import type { ClickHouseClient } from "@clickhouse/client-web";
import type { PersonKey, TimelineEvent, TimelineEventsQuery } from "../person-events";
import { OVERRIDES } from "../../hogql/clickhouse/catalog";
import { TEAM_PARAM } from "../../hogql/clickhouse/sql";
import { cellOf } from "./hogql";
import { timeParam } from "./sql";

/**
 * A person's events on ClickHouse. Event rows keep the person their distinct id had at ingestion;
 * a distinct id that later moved (merge, split, reset) has an override row, so an event belongs to
 * its override's person when there is one, else to its stored person — as HogQL reads it
 * (src/hogql/clickhouse/catalog.ts, whose OVERRIDES this reads). Written as IN subqueries rather
 * than a join, since a DELETE's WHERE cannot join.
 */

/** Events (of `team_id`) whose person is one of `{persons:Array(UUID)}`. */
const OF_PERSONS =
  `(distinct_id IN (SELECT distinct_id FROM (${OVERRIDES}) WHERE person_id IN {persons:Array(UUID)})` +
  ` OR (person_id IN {persons:Array(UUID)} AND distinct_id NOT IN (SELECT distinct_id FROM (${OVERRIDES}))))`;

/**
 * The events a properties timeline replays, as D1 answers them: oldest first; events of one
 * timestamp in the order they were stored (created_at), then by uuid, since ClickHouse keeps no row
 * order of its own.
 */
export async function timelineEventsOnClickHouse(
  client: ClickHouseClient,
  q: TimelineEventsQuery,
): Promise<TimelineEvent[]> {
  const result = await client.query({
    query:
      `SELECT timestamp, properties, timestamp >= ${timeParam("from")} AS in_range FROM events FINAL` +
      ` WHERE team_id = ${TEAM_PARAM} AND timestamp <= ${timeParam("to")} AND ${OF_PERSONS}` +
      ` AND (timestamp >= ${timeParam("from")} OR JSONHas(properties, '$set') OR JSONHas(properties, '$set_once')` +
      " OR JSONHas(properties, '$unset'))" +
      " ORDER BY timestamp, created_at, uuid LIMIT {limit:UInt32}",
    query_params: { team_id: q.projectId, persons: [q.person.uuid], from: q.from, to: q.to, limit: q.limit },
    format: "JSONCompact",
    // FINAL: an event stored twice (separate inserts) is replayed once, as HogQL reads it (hogql/clickhouse/catalog.ts).
    clickhouse_settings: { date_time_output_format: "iso", do_not_merge_across_partitions_select_final: 1 },
  });
  const { meta = [], data } = await result.json<[string, string, number]>();
  const timestampType = meta[0]?.type ?? "DateTime64(6, 'UTC')";
  return data.map(([timestamp, properties, inRange]) => ({
    timestamp: cellOf(timestamp, timestampType) as string,
    properties,
    inRange: Boolean(Number(inRange)),
  }));
}

/**
 * Deletes the persons' events stored (created_at) before `before` with one lightweight DELETE: the
 * rows are masked at once and purged as parts merge, so no chunking is needed.
 */
export async function deletePersonEventsOnClickHouse(
  client: ClickHouseClient,
  projectId: number,
  persons: PersonKey[],
  before: string,
): Promise<void> {
  if (!persons.length) return;
  await client.command({
    query: `DELETE FROM events WHERE team_id = ${TEAM_PARAM} AND created_at < ${timeParam("before")} AND ${OF_PERSONS}`,
    query_params: { team_id: projectId, persons: persons.map((p) => p.uuid), before },
  });
}
