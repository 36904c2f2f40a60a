import { validationError } from "../../lib/errors";
import { pageOf } from "./funnel";
import { parseFunnel, type ProjectContext } from "./funnel-input";
import { attemptEvents, BY_PERSON, funnelCtes } from "./funnel-sql";
import { bool, type Input, json, parseEntity } from "./params";
import { eventColumns, parseProperties, personColumns, propertiesSql } from "./property-filters";
import { actorsPage, type ActorsResponse } from "./response";
import { Params, runAll } from "./sql";
import { correlationCountsSql, correlationTable, type CountRow } from "./correlation-table";

/** `funnel_correlation_person_converted`: true = completed the funnel, false = dropped off, absent = both. */
function convertedCondition(input: Input, steps: number) {
  const converted = bool(input, "funnel_correlation_person_converted");
  if (converted === undefined) return "1";
  return converted ? `f.steps = ${steps}` : `f.steps < ${steps}`;
}

/**
 * Funnel correlation actors: the funnel's persons (converted or dropped off) who did the
 * correlation event during their attempt, or whose person properties match the given values.
 * With `include_correlation=true` the response also carries the correlation table.
 */
export async function correlationActors(
  d1: D1Database,
  ctx: ProjectContext,
  input: Input,
  requestUrl: string,
): Promise<ActorsResponse> {
  const spec = await parseFunnel(input, ctx);
  const page = pageOf(input, "funnel_correlation_person_limit", "funnel_correlation_person_offset");
  const params = new Params();
  const ctes = funnelCtes(spec, params);
  const conditions = [convertedCondition(input, spec.steps.length)];

  const entityRaw = json(input, "funnel_correlation_person_entity");
  if (entityRaw !== undefined) {
    const entity = parseEntity(entityRaw, "funnel_correlation_person_entity");
    if (entity.event === null)
      throw validationError("The correlation entity needs an event name.", "funnel_correlation_person_entity");
    const props = propertiesSql(
      entity.properties,
      eventColumns("x"),
      params,
      "funnel_correlation_person_entity",
      ctx.cohorts,
    );
    conditions.push(`EXISTS (SELECT 1 FROM ${BY_PERSON}
      WHERE ${attemptEvents(spec, params)} AND x.event = ${params.bind(entity.event)} AND ${props})`);
  }
  const values = parseProperties(input.funnel_correlation_property_values, "funnel_correlation_property_values");
  if (values !== undefined) {
    conditions.push(
      propertiesSql(values, personColumns("f.pid"), params, "funnel_correlation_property_values", ctx.cohorts),
    );
  }
  const persons = `SELECT f.pid FROM funnel f WHERE ${conditions.join(" AND ")}
    ORDER BY f.pid LIMIT ${params.bind(page.limit + 1)} OFFSET ${params.bind(page.offset)}`;
  const withTable = bool(input, "include_correlation") === true;
  // With the table, one statement answers both, so the funnel is computed once.
  const sql = withTable
    ? `${ctes} SELECT 'person' AS kind, pid AS name, NULL AS s, NULL AS f FROM (${persons})
       UNION ALL SELECT 'count', name, s, f FROM (${correlationCountsSql(spec, input, params)})`
    : `${ctes} ${persons}`;
  const rows = await runAll<{ kind?: string; pid?: number } & CountRow>(d1, sql, params);
  const ids = withTable
    ? rows
        .filter((r) => r.kind === "person")
        .map((r) => Number(r.name))
        .sort((a, b) => a - b)
    : rows.map((r) => r.pid!);
  const body = await actorsPage(d1, ctx.projectId, ids, page, requestUrl, { funnel: true });
  if (withTable) body.correlation = correlationTable(rows.filter((r) => r.kind === "count"));
  return body;
}
