import { z } from "@hono/zod-openapi";
import { insightActorIds } from "../insights/actors";
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
        "An InsightActorsQuery (or StickinessActorsQuery) over a LifecycleQuery, StickinessQuery or RetentionQuery, or a FunnelsActorsQuery over a FunnelsQuery.",
    }),
    select: z.array(z.string()).nullish().openapi({
      description:
        "Columns: `actor`/`person` (the person), `id`, `created_at`, `is_identified`, `properties.<key>`, `person.$delete`, `person_display_name -- …`. Default `person`, `id`, `person.$delete`.",
    }),
    orderBy: z
      .array(z.string())
      .max(0, { message: "orderBy is not supported: persons come in their order (send [] or leave it out)." })
      .nullish(),
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

type Column = { type: string; value: (person: PersonWithIds) => unknown };

/** What a select expression reads of a person, and its ClickHouse type as PostHog reports it. */
function columnOf(expression: string, attr: string): Column {
  // An alias names the column only (`properties.name as n`).
  const text = expression.replace(/\s+as\s+[A-Za-z_$][\w$]*\s*$/i, "").trim();
  if (text === "actor" || text === "person") return { type: "UUID", value: actorRecord };
  if (text === "id" || text === "actor_id") return { type: "UUID", value: (p) => p.uuid };
  if (text === "person.$delete") return { type: "UInt8", value: () => 1 };
  if (text === "created_at") return { type: "DateTime64(3, 'UTC')", value: (p) => p.createdAt };
  if (text === "is_identified") return { type: "Bool", value: (p) => p.isIdentified };
  if (/^person_display_name\b/.test(text))
    return { type: "Tuple(String, UUID)", value: (p) => ({ display_name: personName(p, p.uuid), id: p.uuid }) };
  const property = /^(?:person\.)?properties\.(.+)$/.exec(text);
  if (property) return { type: "Nullable(String)", value: (p) => p.properties[property[1]] ?? null };
  throw validationError(
    `Unsupported select expression: ${text} (actor, person, id, created_at, is_identified, properties.<key>, person.$delete, person_display_name).`,
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
  return actorsPage(ctx, db, { raw: query.source, attr: `${attr}__source` }, { select, attr: `${attr}__select` }, page);
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
): Promise<ActorsAnswer> {
  const columns = select.select.map((expression, i) => columnOf(expression, `${select.attr}__${i}`));
  const ids = await insightActorIds(ctx, source.raw, source.attr, { limit: page.limit + 1, offset: page.offset });
  const pageIds = ids.slice(0, page.limit);
  const byId = new Map((await getPersonsByIds(db, ctx.projectId, pageIds)).map((p) => [p.id, p]));
  const persons = pageIds.flatMap((id) => byId.get(id) ?? []);
  return {
    columns: select.select,
    types: columns.map((c) => c.type),
    results: persons.map((person) => columns.map((c) => c.value(person))),
    hasMore: ids.length > page.limit,
    ...page,
    missing_actors_count: pageIds.length - persons.length,
  };
}
