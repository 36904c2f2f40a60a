import type { ClickHouseClient } from "@clickhouse/client-web";
import type { PersonKey, TimelineEvent, TimelineEventsQuery } from "../person-events";
import { cellOf } from "./hogql";

/**
 * A person's events on ClickHouse. Event rows keep the person their distinct id had at ingestion;
 * a distinct id that later moved (merge, split, reset) has an override row, so an event belongs to
 * its override's person when there is one, else to its stored person — as HogQL reads it
 * (src/hogql/clickhouse/catalog.ts). The overrides are read at their latest version, without
 * dropped ones. Written as IN subqueries rather than a join, since a DELETE's WHERE cannot join.
 */
const OVERRIDES =
  "SELECT distinct_id, argMax(person_id, version) AS person_id FROM person_distinct_id_overrides" +
  " WHERE team_id = {team_id:Int64} GROUP BY distinct_id HAVING argMax(is_deleted, version) = 0";

/** Events (of `team_id`) whose person is one of `{persons:Array(UUID)}`. */
const OF_PERSONS =
  `(distinct_id IN (SELECT distinct_id FROM (${OVERRIDES}) WHERE person_id IN {persons:Array(UUID)})` +
  ` OR (person_id IN {persons:Array(UUID)} AND distinct_id NOT IN (SELECT distinct_id FROM (${OVERRIDES}))))`;

/** Values bound as typed parameters, never spliced; ISO times parsed as UTC. */
const TIME = (name: string) => `parseDateTime64BestEffort({${name}:String}, 6, 'UTC')`;

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
      `SELECT timestamp, properties, timestamp >= ${TIME("from")} AS in_range FROM events FINAL` +
      ` WHERE team_id = {team_id:Int64} AND timestamp <= ${TIME("to")} AND ${OF_PERSONS}` +
      ` AND (timestamp >= ${TIME("from")} OR JSONHas(properties, '$set') OR JSONHas(properties, '$set_once')` +
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
    query: `DELETE FROM events WHERE team_id = {team_id:Int64} AND created_at < ${TIME("before")} AND ${OF_PERSONS}`,
    query_params: { team_id: projectId, persons: persons.map((p) => p.uuid), before },
  });
}
