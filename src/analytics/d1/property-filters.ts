import { sql } from "drizzle-orm";
import { jsonPathKey } from "../../lib/json";
import { compileFilterGroup, parseFilterGroup, type CohortSql } from "../../shared/filters";
import type { Params } from "../../lib/sql";

/**
 * Property filters of the analysis statements, compiled by the shared matcher (src/shared/filters/)
 * over the JSON columns of each query, and embedded in the statement's numbered parameters. Filters without `type` are event filters, as in PostHog's insights.
 *
 * FilterColumns: the SQL expressions the filters read (the event's properties as JSON text, its
 * person's, and the person id cohort filters test).
 */
export interface FilterColumns {
  event: string;
  person: string;
  personId: string;
}

/** Filters over rows of `events` aliased `alias` (person properties are the person's current ones). */
export const eventColumns = (alias: string): FilterColumns => ({
  event: `${alias}.properties`,
  person: `(SELECT pp.properties FROM persons pp WHERE pp.id = ${alias}.person_id)`,
  personId: `${alias}.person_id`,
});

/** Filters over a person id expression only (no event). */
export const personColumns = (personId: string): FilterColumns => ({
  event: "'{}'",
  person: `(SELECT pp.properties FROM persons pp WHERE pp.id = ${personId})`,
  personId,
});

/** SQL boolean for a filter list (ANDed) or a `{type: AND|OR, values}` group; `1` when empty. */
export function propertiesSql(
  tree: unknown,
  columns: FilterColumns,
  params: Params,
  attr: string,
  cohorts: CohortSql,
): string {
  if (tree === undefined) return "1";
  const group = parseFilterGroup(tree, attr, "event");
  const target = {
    eventProperties: sql.raw(columns.event),
    personProperties: sql.raw(columns.person),
    personId: sql.raw(columns.personId),
  };
  return params.embed(compileFilterGroup(group, target, cohorts));
}

/** The text form PostHog compares on: booleans as `true`/`false`, numbers and strings as text. */
export function jsonText(column: string, path: string) {
  return `(CASE json_type(${column}, ${path}) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' THEN NULL ELSE CAST(json_extract(${column}, ${path}) AS TEXT) END)`;
}

/** A JSON path for one top-level key, as a bound parameter. */
export function keyPath(key: string, params: Params) {
  return params.bind(`$${jsonPathKey(key)}`);
}
