import type { Node } from "../ast";
import { type CatalogTable, readsPerson } from "../catalog";
import { TEAM_PARAM, TIMEZONE_PARAM } from "./sql";
import type { ValueType } from "./values";

/** The catalog's columns as the ClickHouse printer types them (with the person columns an events read may join). */
export const COLUMN_TYPES: Record<CatalogTable, Record<string, ValueType>> = {
  events: {
    uuid: "uuid",
    event: "string",
    properties: "string",
    timestamp: "datetime",
    distinct_id: "string",
    person_id: "uuid",
    created_at: "datetime",
    __person_properties: "string",
    __person_created_at: "datetime",
    __person_is_identified: "number",
  },
  persons: { id: "uuid", created_at: "datetime", properties: "string", is_identified: "number" },
};

/**
 * How much of an event's person a query reads: nothing, the person's id (the overrides join), or
 * the person's own columns too (the persons join as well).
 */
export type PersonReads = "none" | "id" | "person";

const PERSON_COLUMNS = ["properties", "created_at", "is_identified"];

export function personReads(root: Node): PersonReads {
  if (!readsPerson(root)) return "none";
  return readsPersonColumns(root) ? "person" : "id";
}

function readsPersonColumns(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(readsPersonColumns);
  if (!node || typeof node !== "object") return false;
  const n = node as Record<string, unknown>;
  if (n.node === "Field" && Array.isArray(n.chain)) {
    const at = n.chain.slice(0, 2).findIndex((c) => c === "person" || c === "pdi");
    if (at >= 0 && PERSON_COLUMNS.includes(n.chain[at + 1])) return true;
  }
  return Object.values(n).some(readsPersonColumns);
}

/**
 * Each person's latest version (the mirror is ReplacingMergeTree, which only collapses versions when
 * parts merge), without deleted persons, in the project only.
 */
const PERSONS =
  `SELECT p.id AS id, toTimeZone(argMax(p.created_at, p.version), ${TIMEZONE_PARAM}) AS created_at,` +
  " argMax(p.properties, p.version) AS properties, argMax(p.is_identified, p.version) AS is_identified" +
  ` FROM person AS p WHERE p.team_id = ${TEAM_PARAM} GROUP BY p.id HAVING argMax(p.is_deleted, p.version) = 0`;

/**
 * The distinct ids whose events belong to another person since a merge, split or reset, at their
 * latest version, dropped ones left out: the one definition of an event's person on ClickHouse,
 * which the persons operations (analytics/clickhouse/person-events.ts) read too.
 */
export const OVERRIDES =
  "SELECT o.distinct_id AS distinct_id, argMax(o.person_id, o.version) AS person_id, 1 AS merged" +
  ` FROM person_distinct_id_overrides AS o WHERE o.team_id = ${TEAM_PARAM}` +
  " GROUP BY o.distinct_id HAVING argMax(o.is_deleted, o.version) = 0";

/**
 * Events read with FINAL: a copy of an event that reached the table in another insert (an SDK retry
 * that landed in another queue batch) shares its sorting key, uuid included, and ReplacingMergeTree
 * keeps one of them only when parts merge; FINAL applies that now, so a duplicate never counts twice.
 * Copies share a timestamp, hence a partition: HOGQL_SETTINGS lets FINAL work partition by partition.
 */
const EVENTS = "events AS e FINAL";

const eventColumns = (personId: string) =>
  `e.uuid AS uuid, e.event AS event, e.properties AS properties, toTimeZone(e.timestamp, ${TIMEZONE_PARAM}) AS timestamp,` +
  ` e.distinct_id AS distinct_id, ${personId} AS person_id, toTimeZone(e.created_at, ${TIMEZONE_PARAM}) AS created_at`;

/**
 * The subquery a catalog table reads, confined to the project (`{team_id:Int64}`), times in the
 * project's zone. An event's person is the one its distinct id was merged into (the overrides
 * table, joined at read time as PostHog does), else the person stored with it at ingestion; its
 * person's columns come from the persons mirror. Joins are added only when the query reads them.
 */
export function catalogSource(table: CatalogTable, reads: PersonReads): string {
  if (table === "persons") return `(${PERSONS})`;
  if (reads === "none") return `(SELECT ${eventColumns("e.person_id")} FROM ${EVENTS} WHERE e.team_id = ${TEAM_PARAM})`;
  const withPersonId =
    `SELECT ${eventColumns("if(o.merged = 1, o.person_id, e.person_id)")} FROM ${EVENTS}` +
    ` LEFT JOIN (${OVERRIDES}) AS o ON o.distinct_id = e.distinct_id WHERE e.team_id = ${TEAM_PARAM}`;
  if (reads === "id") return `(${withPersonId})`;
  return (
    "(SELECT ep.*, pp.properties AS __person_properties, pp.created_at AS __person_created_at," +
    ` pp.is_identified AS __person_is_identified FROM (${withPersonId}) AS ep LEFT JOIN (${PERSONS}) AS pp ON pp.id = ep.person_id)`
  );
}
