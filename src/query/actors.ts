import { z } from "@hono/zod-openapi";
import { type ActorsOrder, type InsightActor, insightActors } from "../insights/actors";
import type { InsightContext } from "../insights/context";
import type { Db } from "../db/client";
import { fromZodError, validationError } from "../lib/errors";
import { actorRecord, personName, type PersonWithIds } from "../persons/serialize";
import { getPersonsByIds } from "../persons/service";

/**
 * PostHog's ActorsQuery over an insight's persons (actors_query_runner.py): the persons of an
 * InsightActorsQuery (or StickinessActorsQuery) source, one row per person with the `select`ed
 * columns, paged by `limit` and `offset`, in person order.
 */

export const DEFAULT_ACTORS_LIMIT = 100;
/** PostHog clamps a larger limit to its maximum (50,000) rather than refusing it; edgehog clamps to this. */
export const MAX_ACTORS_LIMIT = 10_000;
const DEFAULT_SELECT = ["person", "id", "person.$delete"];

export const ActorsQuery = z
  .object({
    kind: z.literal("ActorsQuery"),
    source: z.record(z.string(), z.unknown()).openapi({
      description:
        "An InsightActorsQuery (or StickinessActorsQuery) over a TrendsQuery, LifecycleQuery, StickinessQuery or RetentionQuery, or a FunnelsActorsQuery over a FunnelsQuery.",
    }),
    select: z.array(z.string()).nullish().openapi({
      description:
        "Columns: `actor`/`person` (the person), `id`, `created_at`, `is_identified`, `properties.<key>`, `person.$delete`, `person_display_name -- …`, and for a TrendsQuery's persons `event_count`. Default `person`, `id`, `person.$delete`.",
    }),
    orderBy: z.array(z.string()).nullish().openapi({
      description:
        'Persons come in person order; `["event_count DESC"]` orders a TrendsQuery\'s persons by their events, most first.',
    }),
    search: z.literal("", { message: "search is not supported for an insight's persons." }).nullish(),
    properties: z
      .array(z.unknown())
      .max(0, { message: "properties are not supported for an insight's persons." })
      .nullish(),
    fixedProperties: z
      .array(z.unknown())
      .max(0, { message: "fixedProperties are not supported for an insight's persons." })
      .nullish(),
    limit: z
      .number()
      .int()
      .nullish()
      .openapi({ description: "Default 100; at most 10,000 (a larger one is clamped)." }),
    offset: z.number().int().min(0).nullish(),
    modifiers: z.record(z.string(), z.unknown()).nullish(),
    tags: z.unknown().optional(),
    version: z.number().nullish(),
    response: z.unknown().optional(),
  })
  .strict()
  .openapi("ActorsQuery");

type Column = { type: string; value: (person: PersonWithIds, actor: InsightActor) => unknown };

/** What a select expression reads of a person, and its ClickHouse type as PostHog reports it. */
function columnOf(expression: string, attr: string, counted: boolean): Column {
  // An alias names the column only (`properties.name as n`).
  const text = expression.replace(/\s+as\s+[A-Za-z_$][\w$]*\s*$/i, "").trim();
  if (text === "actor" || text === "person") return { type: "UUID", value: actorRecord };
  if (text === "id" || text === "actor_id") return { type: "UUID", value: (p) => p.uuid };
  if (text === "person.$delete") return { type: "UInt8", value: () => 1 };
  // edgehog keeps no session recordings: no event of a person matches one (as the drill-downs' `matched_recordings`).
  if (text === "matched_recordings") return { type: "Array(Tuple(String, Array(String)))", value: () => [] };
  if (text === "event_count") {
    if (!counted) throw validationError("event_count is a column of a TrendsQuery's persons only.", attr);
    return { type: "UInt64", value: (_, actor) => actor.events };
  }
  if (text === "created_at") return { type: "DateTime64(3, 'UTC')", value: (p) => p.createdAt };
  if (text === "is_identified") return { type: "Bool", value: (p) => p.isIdentified };
  if (/^person_display_name\b/.test(text))
    return { type: "Tuple(String, UUID)", value: (p) => ({ display_name: personName(p, p.uuid), id: p.uuid }) };
  const property = /^(?:person\.)?properties\.(.+)$/.exec(text);
  if (property) return { type: "Nullable(String)", value: (p) => p.properties[property[1]] ?? null };
  throw validationError(
    `Unsupported select expression: ${text} (actor, person, id, created_at, is_identified, properties.<key>, person.$delete, person_display_name, event_count, matched_recordings).`,
    attr,
  );
}

export interface ActorsAnswer {
  columns: string[];
  types: string[];
  results: unknown[][];
  hasMore: boolean;
  limit: number;
  offset: number;
  missing_actors_count: number;
}

/** Runs an ActorsQuery given as PostHog's JSON; a 400 names fields under `attr`. */
export async function runActorsQuery(
  ctx: InsightContext,
  db: Db,
  raw: Record<string, unknown>,
  attr: string,
): Promise<ActorsAnswer> {
  const parsed = ActorsQuery.safeParse(raw);
  if (!parsed.success) throw fromZodError(parsed.error).under(attr);
  const query = parsed.data;
  const select = query.select?.length ? query.select : DEFAULT_SELECT;
  const limit = Math.min(query.limit && query.limit > 0 ? query.limit : DEFAULT_ACTORS_LIMIT, MAX_ACTORS_LIMIT);
  const page = { limit, offset: query.offset ?? 0 };
  const order = orderOf(query.orderBy ?? [], `${attr}__orderBy`);
  const source = { raw: query.source, attr: `${attr}__source` };
  return actorsPage(ctx, db, source, { select, attr: `${attr}__select` }, page, order);
}

/** The one order besides person order: a trends point's persons by their events (PostHog's persons modal). */
function orderOf(orderBy: string[], attr: string): ActorsOrder {
  if (!orderBy.length) return "person";
  if (orderBy.length === 1 && /^event_count\s+desc$/i.test(orderBy[0].trim())) return "events";
  throw validationError(
    'orderBy is not supported except ["event_count DESC"] (a TrendsQuery\'s persons): persons come in person order.',
    attr,
  );
}

/**
 * An InsightActorsQuery sent on its own: its persons' ids (PostHog answers the source's raw
 * `actor_id` rows), the first 100.
 */
export function runInsightActorsQuery(ctx: InsightContext, db: Db, raw: Record<string, unknown>, attr: string) {
  const page = { limit: DEFAULT_ACTORS_LIMIT, offset: 0 };
  return actorsPage(ctx, db, { raw, attr }, { select: ["actor_id"], attr: `${attr}__select` }, page);
}

async function actorsPage(
  ctx: InsightContext,
  db: Db,
  source: { raw: Record<string, unknown>; attr: string },
  select: { select: string[]; attr: string },
  page: { limit: number; offset: number },
  order: ActorsOrder = "person",
): Promise<ActorsAnswer> {
  // Only a trends point counts its persons' events.
  const counted = (source.raw.source as { kind?: unknown } | undefined)?.kind === "TrendsQuery";
  const columns = select.select.map((expression, i) => columnOf(expression, `${select.attr}__${i}`, counted));
  const found = await insightActors(
    ctx,
    source.raw,
    source.attr,
    { limit: page.limit + 1, offset: page.offset },
    order,
  );
  const actors = found.slice(0, page.limit);
  const byId = new Map(
    (
      await getPersonsByIds(
        db,
        ctx.projectId,
        actors.map((a) => a.personId),
      )
    ).map((p) => [p.id, p]),
  );
  const rows = actors.flatMap((actor) => {
    const person = byId.get(actor.personId);
    return person ? [columns.map((c) => c.value(person, actor))] : [];
  });
  return {
    columns: select.select,
    types: columns.map((c) => c.type),
    results: rows,
    hasMore: found.length > page.limit,
    ...page,
    missing_actors_count: actors.length - rows.length,
  };
}
