import { validationError } from "../../lib/errors";
import { resolveDateRange } from "./dates";
import { pageOf } from "./funnel";
import type { ProjectContext } from "./funnel-input";
import { type EventEntity, globalFilters, type Input, int, interval, json, parseEntity, str } from "./params";
import { eventColumns, propertiesSql } from "./property-filters";
import { actorsPage, type ActorsResponse } from "./response";
import { byTime } from "./funnel-sql";
import { Params, queryTooComplex, runAll } from "./sql";
import { addIntervals, iso, startOfInterval } from "./zone";

export const MAX_PERIODS = 2000;

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

/**
 * Stickiness actors: persons who did the entity in exactly `stickiness_days` of the range's
 * periods (local days/weeks/months). The periods go to SQL as one JSON parameter of UTC bounds;
 * each period drives an index range scan, so events are read once.
 */
export async function stickinessActors(
  d1: D1Database,
  ctx: ProjectContext,
  input: Input,
  requestUrl: string,
): Promise<ActorsResponse> {
  const entity = stickinessEntity(input);
  const days = int(input, "stickiness_days", { min: 1 });
  if (days === undefined) throw validationError("stickiness_days is required.", "stickiness_days", "required");
  const unit = interval(input);
  const page = pageOf(input);
  const range = await resolveDateRange(
    { date_from: str(input, "date_from"), date_to: str(input, "date_to") },
    ctx.timezone,
    ctx.now,
    ctx.earliest,
  );
  const periods: [string, string][] = [];
  for (
    let start = startOfInterval(range.from, unit, ctx.timezone);
    start < range.to;
    start = addIntervals(start, 1, unit, ctx.timezone)
  ) {
    if (periods.length >= MAX_PERIODS)
      throw queryTooComplex(`The range spans more than ${MAX_PERIODS} ${unit}s; narrow it or use a longer interval.`);
    const end = addIntervals(start, 1, unit, ctx.timezone);
    periods.push([iso(Math.max(start, range.from)), iso(Math.min(end, range.to))]);
  }

  const params = new Params();
  const cols = eventColumns("x");
  const eventMatch = entity.event === null ? "1" : `x.event = ${params.bind(entity.event)}`;
  const filters = [
    propertiesSql(globalFilters(input, ctx.testAccountFilters), cols, params, "properties", ctx.cohorts),
    propertiesSql(entity.properties, cols, params, "events", ctx.cohorts),
  ].join(" AND ");
  // CROSS JOIN keeps `periods` as the outer loop: one index range scan per period.
  const sql = `WITH periods AS (
      SELECT CAST(key AS INTEGER) AS idx, json_extract(value, '$[0]') AS s, json_extract(value, '$[1]') AS e
      FROM json_each(${params.bind(JSON.stringify(periods))})
    ), act AS (
      SELECT x.person_id AS pid, count(DISTINCT p.idx) AS n
      FROM periods p CROSS JOIN ${byTime(entity.event !== null)}
      WHERE x.project_id = ${params.bind(ctx.projectId)} AND ${eventMatch}
        AND x.timestamp >= p.s AND x.timestamp < p.e AND x.person_id IS NOT NULL AND ${filters}
      GROUP BY x.person_id
    )
    SELECT pid FROM act WHERE n = ${params.bind(days)}
    ORDER BY pid LIMIT ${params.bind(page.limit + 1)} OFFSET ${params.bind(page.offset)}`;
  const rows = await runAll<{ pid: number }>(d1, sql, params);
  return actorsPage(
    d1,
    ctx.projectId,
    rows.map((r) => r.pid),
    page,
    requestUrl,
  );
}
