import type { ClickHouseClient } from "@clickhouse/client-web";
import { CORRELATION_TOTAL, type CorrelationAnswer, type CorrelationCount, type CorrelationQuery } from "../queries";
import { eventFilterColumns, readsPerson } from "./analysis-events";
import { LATEST_PERSONS, personPage } from "./analysis-persons";
import { analysisRows, runAnalysis } from "./analysis-run";
import { type ClickHouseFunnel, funnelSql } from "./funnel";
import { ClickHouseParams } from "./params";
import { type ClickHouseCohorts, propertiesSql } from "./property-filters";

/**
 * Whether an event time `x` falls in the person's attempt, as D1's attemptEvents bounds it: after
 * step 1, before the final step (or, without conversion, before the window's end). The range bounds
 * hold already: the funnel reads only the range's events.
 */
const duringAttempt = (x: string) => `${x} > t1 AND ${x} < ifNull(tfinal, dl)`;

/**
 * The persons a correlation drill-down selects (D1 ids in id order) and, when asked, the correlation
 * counts of the same funnel: each event done during the attempt, or each person property value, with
 * the persons who converted (`s`) and dropped off (`f`), plus a total row. Two statements, run side
 * by side, each computing the funnel (ClickHouse does not keep a subquery's result between them).
 */
export async function correlationOnClickHouse(
  client: ClickHouseClient,
  query: CorrelationQuery,
  cohorts: ClickHouseCohorts,
): Promise<CorrelationAnswer> {
  const funnel: ClickHouseFunnel = { ...query.funnel, cohorts };
  const [personIds, counts] = await Promise.all([
    correlationPersons(client, query, funnel),
    query.counts ? correlationCounts(client, funnel, query.counts) : undefined,
  ]);
  return counts ? { personIds, counts } : { personIds };
}

/** The funnel's persons with their latest properties as `person_properties`. */
const withPersonProperties = (funnel: string) =>
  `(SELECT fp.*, lp.properties AS person_properties FROM ${funnel} AS fp LEFT JOIN (${LATEST_PERSONS}) AS lp ON lp.id = fp.pid)`;

/** Names of the funnel's step events: correlation never counts them (D1's attemptEvents). */
const stepNames = (funnel: ClickHouseFunnel) => funnel.steps.map((s) => s.event).filter((e): e is string => e !== null);

function correlationPersons(client: ClickHouseClient, query: CorrelationQuery, funnel: ClickHouseFunnel) {
  const params = new ClickHouseParams(funnel.projectId);
  const n = funnel.steps.length;
  const conditions = [query.converted === undefined ? "1" : query.converted ? `steps = ${n}` : `steps < ${n}`];
  const aggregates: Record<string, string> = {};
  const { entity } = query;
  if (entity) {
    const attr = "funnel_correlation_person_entity";
    const props = propertiesSql(entity.properties, eventFilterColumns, params, attr, funnel.cohorts);
    // A step's event is never an attempt's other event (D1's attemptEvents): nobody matches.
    if (stepNames(funnel).includes(entity.event)) conditions.push("0");
    else {
      aggregates.entity_times = `groupArrayIf(t, event = ${params.text(entity.event)} AND ${props})`;
      conditions.push(`arrayExists(x -> ${duringAttempt("x")}, entity_times)`);
    }
  }
  let source = funnelSql(funnel, params, {
    aggregates,
    events: entity ? [entity.event] : [],
    readsPerson: entity !== undefined && readsPerson(entity.properties),
  });
  if (query.personProperties !== undefined) {
    const columns = { event: "'{}'", person: "person_properties", personId: "pid" };
    const attr = "funnel_correlation_property_values";
    conditions.push(propertiesSql(query.personProperties, columns, params, attr, funnel.cohorts));
    source = withPersonProperties(source);
  }
  const selected = `(SELECT pid FROM ${source} WHERE ${conditions.join(" AND ")})`;
  return runAnalysis(client, personPage(selected, query.rows, params), params);
}

async function correlationCounts(
  client: ClickHouseClient,
  funnel: ClickHouseFunnel,
  counts: NonNullable<CorrelationQuery["counts"]>,
): Promise<CorrelationCount[]> {
  const params = new ClickHouseParams(funnel.projectId);
  const N = funnel.steps.length;
  const tally = `countIf(steps = ${N}) AS s, countIf(steps < ${N}) AS f`;
  const total = params.text(CORRELATION_TOTAL);
  let sql: string;
  if (counts.type === "events") {
    // In the funnel's own pass over the range's events: each person's other events as two aligned
    // arrays (one aggregation fills both in the same row order), times and name hashes (arrays of
    // strings or tuples cost several times more), each name once per person, so the counts are of
    // persons; the names come back from the hashes at the end (a 64-bit hash: no collision between a
    // project's event names is to be expected).
    const excluded = params.bind([...stepNames(funnel), ...counts.excludeEventNames], "Array(String)");
    const other = `NOT has(${excluded}, event)`;
    const source = funnelSql(funnel, params, {
      aggregates: { done_times: `groupArrayIf(t, ${other})`, done_names: `groupArrayIf(cityHash64(event), ${other})` },
    });
    // Each name once (sorted, then unlike the one before: no hash set per person).
    const during = `arraySort(arrayFilter((h, x) -> ${duringAttempt("x")}, done_names, done_times))`;
    const done = `arrayFilter((h, p) -> h != p, ${during} AS during, arrayShiftRight(during, 1))`;
    // Hash 0 stands for the total row: every person counts once under it.
    const tallied = `SELECT h, ${tally} FROM (SELECT steps, arrayJoin(arrayPushBack(${done}, 0)) AS h FROM ${source}) GROUP BY h`;
    // The range's event names, hashed once each (grouping first reads only the sorted name column).
    const names =
      `SELECT cityHash64(event) AS h, event AS name FROM (SELECT event FROM events WHERE team_id = ${params.team}` +
      ` AND timestamp >= ${params.time(funnel.from)} AND timestamp < ${params.time(funnel.to)} GROUP BY event)`;
    sql = `SELECT if(c.h = 0, ${total}, n.name) AS name, c.s AS s, c.f AS f FROM (${tallied}) AS c LEFT JOIN (${names}) AS n ON n.h = c.h`;
  } else {
    const source = withPersonProperties(funnelSql(funnel, params));
    const wanted = counts.names.includes("$all") ? "1" : `has(${params.bind(counts.names, "Array(String)")}, kv.1)`;
    const excluded = params.bind(counts.excludeNames, "Array(String)");
    // PostHog's `key::value`, the value as D1 prints it: true/false, '' for null, strings unquoted, the rest as JSON.
    const value = `multiIf(JSONType(kv.2) = 'String', JSONExtractString(kv.2), JSONType(kv.2) = 'Null', '', kv.2)`;
    const names = `arrayMap(kv -> concat(kv.1, '::', ${value}), arrayFilter(kv -> ${wanted} AND NOT has(${excluded}, kv.1), JSONExtractKeysAndValuesRaw(person_properties)))`;
    // Every person also counts once under the total, in the same pass over the funnel.
    sql = `SELECT name, ${tally} FROM (SELECT steps, arrayJoin(arrayPushBack(${names}, ${total})) AS name FROM ${source}) GROUP BY name`;
  }
  const rows = await analysisRows<CorrelationCount>(client, sql, params);
  return rows.map((r) => ({ name: r.name, s: Number(r.s), f: Number(r.f) }));
}
