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
        "Columns: `actor`/`person` (the person), `id`, `created_at`, `is_identified`, `properties.<key>`, `person.$delete`, `person_display_name -- …`, `matched_recordings` (always empty); a TrendsQuery's persons: `event_count`; a RetentionQuery's: `appearances` and `day_0`, `day_1`, … (`week_k`, … by its period). Default `person`, `id`, `person.$delete`.",
    }),
    orderBy: z.array(z.string()).nullish().openapi({
      description:
        'Persons come in person order; `["event_count DESC"]` orders a TrendsQuery\'s persons by their events, `["length(appearances) DESC"]` a RetentionQuery\'s by their appearances, most first (a trailing `actor_id` is accepted).',
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

/** What the insight behind the persons offers beyond their own columns (and orders). */
interface SourceColumns {
  /** A trends point: each person's events. */
  events: boolean;
  /** A retention cohort: each person's appearances, and the interval's name of the `<interval>_<k>` columns. */
  appearances?: string;
}

function sourceColumns(raw: Record<string, unknown>): SourceColumns {
  const insight = raw.source as { kind?: unknown; retentionFilter?: { period?: unknown } } | undefined;
  if (insight?.kind !== "RetentionQuery") return { events: insight?.kind === "TrendsQuery" };
  return { events: false, appearances: String(insight.retentionFilter?.period ?? "Day").toLowerCase() };
}

/** What a select expression reads of a person, and its ClickHouse type as PostHog reports it. */
function columnOf(expression: string, attr: string, offered: SourceColumns): Column {
  // An alias names the column only (`properties.name as n`).
  const text = expression.replace(/\s+as\s+[A-Za-z_$][\w$]*\s*$/i, "").trim();
  if (text === "actor" || text === "person") return { type: "UUID", value: actorRecord };
  if (text === "id" || text === "actor_id") return { type: "UUID", value: (p) => p.uuid };
  if (text === "person.$delete") return { type: "UInt8", value: () => 1 };
  // edgehog keeps no session recordings: no event of a person matches one (as the drill-downs' `matched_recordings`).
  if (text === "matched_recordings") return { type: "Array(Tuple(String, Array(String)))", value: () => [] };
  if (text === "event_count") {
    if (!offered.events) throw validationError("event_count is a column of a TrendsQuery's persons only.", attr);
    return { type: "UInt64", value: (_, actor) => actor.events };
  }
  if (text === "appearances") {
    if (!offered.appearances)
      throw validationError("appearances is a column of a RetentionQuery's persons only.", attr);
    return { type: "Array(Int64)", value: (_, actor) => actor.appearances };
  }
  // PostHog's `day_0`, `day_1`, ... (`week_k`, ...): whether the person is counted at interval k.
  const interval = /^([a-z]+)_(\d+)$/.exec(text);
  if (interval && offered.appearances === interval[1]) {
    const k = Number(interval[2]);
    return { type: "UInt8", value: (_, actor) => (actor.appearances?.includes(k) ? 1 : 0) };
  }
  if (text === "created_at") return { type: "DateTime64(3, 'UTC')", value: (p) => p.createdAt };
  if (text === "is_identified") return { type: "Bool", value: (p) => p.isIdentified };
  if (/^person_display_name\b/.test(text))
    return { type: "Tuple(String, UUID)", value: (p) => ({ display_name: personName(p, p.uuid), id: p.uuid }) };
  const property = /^(?:person\.)?properties\.(.+)$/.exec(text);
  if (property) return { type: "Nullable(String)", value: (p) => p.properties[property[1]] ?? null };
  throw validationError(
    `Unsupported select expression: ${text} (actor, person, id, created_at, is_identified, properties.<key>, person.$delete, person_display_name, matched_recordings; event_count of a trends point; appearances and <interval>_<k> of a retention cohort).`,
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
  const order = orderOf(query.orderBy ?? [], `${attr}__orderBy`, sourceColumns(query.source));
  const source = { raw: query.source, attr: `${attr}__source` };
  return actorsPage(ctx, db, source, { select, attr: `${attr}__select` }, page, order);
}

/**
 * The orders besides person order, each where the insight counts something of its persons: a trends
 * point's by their events, a retention cohort's by their appearances (PostHog's persons modals).
 */
function orderOf(orderBy: string[], attr: string, offered: SourceColumns): ActorsOrder {
  const [first, ...rest] = orderBy.map((o) => o.trim().replace(/\s+/g, " "));
  if (first === undefined) return "person";
  // A trailing `actor_id` breaks ties, in person order here.
  const ties = rest.length === 0 || (rest.length === 1 && /^actor_id( asc| desc)?$/i.test(rest[0]));
  if (ties && offered.events && /^event_count desc$/i.test(first)) return "events";
  if (ties && offered.appearances && /^length\(appearances\) desc$/i.test(first)) return "appearances";
  throw validationError(
    'orderBy is one of ["event_count DESC"] (a TrendsQuery\'s persons) and ["length(appearances) DESC"] (a RetentionQuery\'s), optionally then "actor_id"; without it persons come in person order.',
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
  const offered = sourceColumns(source.raw);
  const columns = select.select.map((expression, i) => columnOf(expression, `${select.attr}__${i}`, offered));
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
