import type { D1Client } from "../../db/client";
import type { CohortSql } from "../../shared/filters";
import { Params } from "../../lib/sql";
import { CORRELATION_TOTAL, type CorrelationAnswer, type CorrelationCount, type CorrelationQuery } from "../queries";
import { attemptEvents, BY_PERSON, type D1Funnel, funnelCtes } from "./funnel-sql";
import { eventColumns, personColumns, propertiesSql } from "./property-filters";
import { runAll } from "./run";

/**
 * The contingency counts of a funnel's correlation table, as SQL over the `funnel` CTE: one row
 * per event done during the attempt (or per person property value) with its converted (`s`) and
 * dropped-off (`f`) persons, plus a total row.
 */
function correlationCountsSql(funnel: D1Funnel, counts: NonNullable<CorrelationQuery["counts"]>, params: Params) {
  const N = params.bind(funnel.steps.length);
  const tally = `count(DISTINCT CASE WHEN f.steps = ${N} THEN f.pid END) AS s, count(DISTINCT CASE WHEN f.steps < ${N} THEN f.pid END) AS f`;
  let detail: string;
  if (counts.type === "events") {
    const excluded = params.bindList(counts.excludeEventNames);
    // One row per (event, person) first, so the counts need no DISTINCT over the whole join.
    detail = `SELECT name, sum(steps = ${N}) AS s, sum(steps < ${N}) AS f FROM (
        SELECT DISTINCT x.event AS name, f.pid, f.steps FROM funnel f JOIN ${BY_PERSON} ON ${attemptEvents(funnel, params)}
        AND x.event NOT IN ${excluded}) GROUP BY name`;
  } else {
    const keys = counts.names.includes("$all") ? "1" : `j.key IN ${params.bindList(counts.names)}`;
    const excluded = params.bindList(counts.excludeNames);
    const value = `(CASE j.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' THEN '' ELSE CAST(j.value AS TEXT) END)`;
    detail = `SELECT j.key || '::' || ${value} AS name, ${tally}
      FROM funnel f JOIN persons p ON p.id = f.pid JOIN json_each(p.properties) j
      WHERE ${keys} AND j.key NOT IN ${excluded} GROUP BY name`;
  }
  return `${detail} UNION ALL SELECT ${params.bind(CORRELATION_TOTAL)} AS name, ${tally} FROM funnel f`;
}

/** The persons a correlation drill-down selects, in id order, and the correlation counts when asked. */
export async function correlation(
  d1: D1Client,
  query: CorrelationQuery,
  cohorts: CohortSql,
): Promise<CorrelationAnswer> {
  const funnel: D1Funnel = { ...query.funnel, cohorts };
  const params = new Params();
  const ctes = funnelCtes(funnel, params);
  const steps = funnel.steps.length;
  const conditions = [
    query.converted === undefined ? "1" : query.converted ? `f.steps = ${steps}` : `f.steps < ${steps}`,
  ];
  if (query.entity) {
    const attr = "funnel_correlation_person_entity";
    const props = propertiesSql(query.entity.properties, eventColumns("x"), params, attr, cohorts);
    conditions.push(`EXISTS (SELECT 1 FROM ${BY_PERSON}
      WHERE ${attemptEvents(funnel, params)} AND x.event = ${params.bind(query.entity.event)} AND ${props})`);
  }
  if (query.personProperties !== undefined) {
    const attr = "funnel_correlation_property_values";
    conditions.push(propertiesSql(query.personProperties, personColumns("f.pid"), params, attr, cohorts));
  }
  const persons = `SELECT f.pid FROM funnel f WHERE ${conditions.join(" AND ")}
    ORDER BY f.pid LIMIT ${params.bind(query.rows.limit)} OFFSET ${params.bind(query.rows.offset)}`;
  if (!query.counts) {
    const rows = await runAll<{ pid: number }>(d1, `${ctes} ${persons}`, params);
    return { personIds: rows.map((r) => r.pid) };
  }
  // With the counts, one statement answers both, so the funnel is computed once.
  const sql = `${ctes} SELECT 'person' AS kind, pid AS name, NULL AS s, NULL AS f FROM (${persons})
     UNION ALL SELECT 'count', name, s, f FROM (${correlationCountsSql(funnel, query.counts, params)})`;
  const rows = await runAll<{ kind: string } & CorrelationCount>(d1, sql, params);
  return {
    personIds: rows
      .filter((r) => r.kind === "person")
      .map((r) => Number(r.name))
      .sort((a, b) => a - b),
    counts: rows.filter((r) => r.kind === "count"),
  };
}
