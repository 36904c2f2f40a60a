import { OVERRIDES } from "../../hogql/clickhouse/catalog";
import { type FilterGroup, isGroup, parseFilterGroup, type PropertyFilter } from "../../shared/filters";
import { LATEST_PERSONS } from "./analysis-persons";
import type { ClickHouseParams } from "./params";
import type { EventEntity } from "../queries";
import { type ClickHouseCohorts, type ClickHouseFilterColumns, propertiesSql } from "./property-filters";

/**
 * The events the persons analysis reads on ClickHouse, as D1's analysis reads `events`: a project's
 * events in a time range, each with its person (the override's person when its distinct id was
 * merged, split or reset, else the person stored at ingestion; events stored without a person left out,
 * unless `personless` asks for them too: their `pid` is then NULL).
 *
 * Read FINAL only when asked (`final`): a copy of an event stored by a second insert changes no
 * view's answer except a funnel's whose steps an event can match twice or whose steps must be
 * adjacent (funnel.ts), and FINAL costs a third of these reads.
 *
 * Columns: `pid` (the person's uuid), `timestamp`, `t` and `created` (the event's time and created_at
 * in microseconds since the epoch), `ord` (the events' order as one number: time, then created_at,
 * which ingestion makes increase in a request's order, as D1 orders simultaneous events by
 * insertion), `event`, `distinct_id`, `properties` and, when asked, `person_properties` (the person's
 * latest properties). A question that never reads the person (`anonymous`: no person filter, no
 * distinct persons) skips the overrides join, and its `pid` is the stored one.
 */
export function analysisEvents(
  params: ClickHouseParams,
  range: { from: string; to: string },
  options: { personProperties?: boolean; final?: boolean; personless?: boolean; anonymous?: boolean } = {},
): string {
  const pid = options.anonymous
    ? "e.person_id"
    : options.personless
      ? "if(o.merged = 1, toNullable(o.person_id), e.person_id)"
      : "if(o.merged = 1, o.person_id, assumeNotNull(e.person_id))";
  const overrides = options.anonymous ? "" : ` LEFT ANY JOIN (${OVERRIDES}) AS o ON o.distinct_id = e.distinct_id`;
  const events =
    `SELECT ${pid} AS pid, e.distinct_id AS distinct_id,` +
    " e.timestamp AS timestamp, toUnixTimestamp64Micro(e.timestamp) AS t, toUnixTimestamp64Micro(e.created_at) AS created," +
    " bitShiftLeft(toUInt128(t), 64) + toUInt128(created) AS ord," +
    " e.event AS event, e.properties AS properties" +
    ` FROM events AS e${options.final ? " FINAL" : ""}${overrides}` +
    ` WHERE e.team_id = ${params.team} AND e.timestamp >= ${params.time(range.from)} AND e.timestamp < ${params.time(range.to)}` +
    // Events stored without a person stay without one, as on D1 (a merge moves only a person's events).
    (options.personless ? "" : " AND e.person_id IS NOT NULL");
  if (!options.personProperties) return `(${events})`;
  return `(SELECT ev.*, lp.properties AS person_properties FROM (${events}) AS ev LEFT JOIN (${LATEST_PERSONS}) AS lp ON lp.id = ev.pid)`;
}

/** The filter columns of `analysisEvents` rows (person properties only when read with them). */
export const eventFilterColumns: ClickHouseFilterColumns = {
  event: "properties",
  person: "person_properties",
  personId: "pid",
};

/** Whether any of these filter trees reads the person (a person property or a cohort): the events are then read with them. */
export function readsPerson(...trees: unknown[]): boolean {
  const reads = (node: FilterGroup | PropertyFilter): boolean =>
    isGroup(node) ? node.values.some(reads) : node.kind !== "event";
  return trees.some((tree) => tree !== undefined && reads(parseFilterGroup(tree, "properties", "event")));
}

/**
 * The condition on `analysisEvents` rows for one series (an event, or every event) under the global
 * `properties`, and whether the rows must be read with their person's properties for it.
 */
export function seriesCondition(
  params: ClickHouseParams,
  cohorts: ClickHouseCohorts,
  series: EventEntity,
  properties: unknown,
): { condition: string; withPerson: boolean } {
  const filter = (tree: unknown, attr: string) => propertiesSql(tree, eventFilterColumns, params, attr, cohorts);
  const condition = [
    series.event === null ? "1" : `event = ${params.text(series.event)}`,
    filter(properties, "properties"),
    filter(series.properties, "events"),
  ].join(" AND ");
  return { condition, withPerson: readsPerson(properties, series.properties) };
}
