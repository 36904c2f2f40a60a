import type { EventEntity } from "../../analytics/queries";
import { stickinessWindows } from "../../analytics/periods";
import { validationError } from "../../lib/errors";
import { type AnalysisContext, requestedRange } from "./context";
import { globalFilters, type Input, int, interval, json, parseEntity, str } from "./params";
import { type ActorsResponse, actorsPage, pageOf, rowsOf } from "./response";

/**
 * The entity to drill into, found as PostHog's get_target_entity finds it: by `entity_order` in
 * the `events` list, else by `entity_id` in that list, else from `entity_id` and `entity_type`
 * alone. Without `entity_id`, only `entity_type=events` is accepted (every event).
 */
function stickinessEntity(input: Input): EventEntity {
  const type = str(input, "entity_type");
  const id = str(input, "entity_id");
  if (id === undefined && type !== "events") {
    throw validationError("An entity id and the entity type must be provided to determine an entity", "entity_id");
  }
  if (type === "actions") return parseEntity({ id, type }, "entity_type");
  const events = json(input, "events");
  const listed = Array.isArray(events)
    ? events.filter((e): e is Record<string, unknown> => !!e && typeof e === "object")
    : [];
  const order = int(input, "entity_order");
  const found =
    (order !== undefined ? listed.find((e, i) => Number(e.order ?? i) === order) : undefined) ??
    listed.find((e) => (e.id ?? undefined) === id);
  if (found) return parseEntity(found, "events");
  if (type === undefined)
    throw validationError("An entity must be provided for target entity to be determined", "entity_type");
  return parseEntity({ id, type }, "entity_type");
}

/** Stickiness actors: persons who did the entity in exactly `stickiness_days` of the range's local intervals. */
export async function stickinessActors(
  ctx: AnalysisContext,
  input: Input,
  requestUrl: string,
): Promise<ActorsResponse> {
  const entity = stickinessEntity(input);
  const days = int(input, "stickiness_days", { min: 1 });
  if (days === undefined) throw validationError("stickiness_days is required.", "stickiness_days", "required");
  const unit = interval(input);
  const page = pageOf(input);
  const range = await requestedRange(ctx, input);
  const question = {
    projectId: ctx.projectId,
    entity,
    properties: globalFilters(input, ctx.testAccountFilters),
    ...stickinessWindows(range, unit, ctx.timezone, ctx.weekStart),
  };
  const ids = await ctx.store.stickinessActors({ question, activePeriods: days, rows: rowsOf(page) });
  return actorsPage(ctx.db, ctx.projectId, ids, page, requestUrl);
}
