import type { ClickHouseClient } from "@clickhouse/client-web";
import { CORRELATION_TOTAL, type CorrelationAnswer, type CorrelationCount, type CorrelationQuery } from "../queries";
import { analysisEvents, eventFilterColumns, readsPerson } from "./analysis-events";
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
  const total = params.text(CORRELATION_TOTAL);
  let sql: string;
  if (counts.type === "events") {
    // The range's events joined to the funnel's persons (the build side: one row per person), kept when
    // done during the attempt; the person's step-1 event at t1 (every funnel person has one, whatever
    // else they did) counts them under the total, in the same pass. Persons are counted once per name.
    const excluded = params.bind([...stepNames(funnel), ...counts.excludeEventNames], "Array(String)");
    const first = funnel.steps[0].event;
    const ofStep1 = first === null ? null : `ev.event = ${params.text(first)}`;
    const startsAttempt = ofStep1 ? `ev.t = fu.t1 AND ${ofStep1}` : "ev.t = fu.t1";
    const other = `ev.event NOT IN ${excluded}`;
    // Only the events that can count are joined (an event of step 1 may be the attempt's start).
    const read = ofStep1 ? ` WHERE ${other} OR ${ofStep1}` : "";
    const events = `(SELECT pid, t, event FROM ${analysisEvents(params, funnel)} AS ev${read})`;
    sql =
      `SELECT if(${startsAttempt}, ${total}, ev.event) AS name,` +
      ` uniqExactIf(fu.pid, fu.steps = ${N}) AS s, uniqExactIf(fu.pid, fu.steps < ${N}) AS f` +
      ` FROM ${events} AS ev INNER JOIN ${funnelSql(funnel, params)} AS fu ON fu.pid = ev.pid` +
      ` WHERE (${startsAttempt}) OR (${other} AND ${duringAttempt("ev.t")}) GROUP BY name`;
  } else {
    const source = withPersonProperties(funnelSql(funnel, params));
    const wanted = counts.names.includes("$all") ? "1" : `has(${params.bind(counts.names, "Array(String)")}, kv.1)`;
    const excluded = params.bind(counts.excludeNames, "Array(String)");
    // PostHog's `key::value`, the value as D1 prints it: true/false, '' for null, strings unquoted, the rest as JSON.
    const value = `multiIf(JSONType(kv.2) = 'String', JSONExtractString(kv.2), JSONType(kv.2) = 'Null', '', kv.2)`;
    const names = `arrayMap(kv -> concat(kv.1, '::', ${value}), arrayFilter(kv -> ${wanted} AND NOT has(${excluded}, kv.1), JSONExtractKeysAndValuesRaw(person_properties)))`;
    // Every person also counts once under the total, in the same pass over the funnel.
    sql = `SELECT name, countIf(steps = ${N}) AS s, countIf(steps < ${N}) AS f FROM (SELECT steps, arrayJoin(arrayPushBack(${names}, ${total})) AS name FROM ${source}) GROUP BY name`;
  }
  const rows = await analysisRows<CorrelationCount>(client, sql, params);
  return rows.map((r) => ({ name: r.name, s: Number(r.s), f: Number(r.f) }));
}
