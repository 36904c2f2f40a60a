import { validationError } from "../../lib/errors";
import type { AnalysisContext } from "./context";
import { correlationTable, parseCorrelationCounts } from "./correlation-table";
import { parseFunnel } from "./funnel-input";
import { parseFiltersJson } from "../../shared/filters";
import { bool, type Input, json, parseEntity } from "./params";
import { type ActorsResponse, actorsPage, pageOf, rowsOf } from "./response";

/** `funnel_correlation_person_entity`: the event the persons must have done during their attempt. */
function correlationEntity(input: Input) {
  const raw = json(input, "funnel_correlation_person_entity");
  if (raw === undefined) return undefined;
  const entity = parseEntity(raw, "funnel_correlation_person_entity");
  if (entity.event === null)
    throw validationError("The correlation entity needs an event name.", "funnel_correlation_person_entity");
  return { ...entity, event: entity.event };
}

/**
 * Funnel correlation actors: the funnel's persons (converted or dropped off) who did the
 * correlation event during their attempt, or whose person properties match the given values.
 * With `include_correlation=true` the response also carries the correlation table.
 */
export async function correlationActors(
  ctx: AnalysisContext,
  input: Input,
  requestUrl: string,
): Promise<ActorsResponse> {
  const funnel = await parseFunnel(input, ctx);
  const page = pageOf(input, "funnel_correlation_person_limit", "funnel_correlation_person_offset");
  const answer = await ctx.store.correlation({
    funnel,
    // `funnel_correlation_person_converted`: true = completed the funnel, false = dropped off, absent = both.
    converted: bool(input, "funnel_correlation_person_converted"),
    entity: correlationEntity(input),
    personProperties: parseFiltersJson(input.funnel_correlation_property_values, "funnel_correlation_property_values"),
    rows: rowsOf(page),
    counts: bool(input, "include_correlation") === true ? parseCorrelationCounts(input) : undefined,
  });
  const body = await actorsPage(ctx.db, ctx.projectId, answer.personIds, page, requestUrl, { funnel: true });
  if (answer.counts) body.correlation = correlationTable(answer.counts);
  return body;
}
