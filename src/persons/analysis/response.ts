import { z } from "@hono/zod-openapi";
import type { Db } from "../../db/client";
import { hydratePersons, SerializedPersonSchema } from "./persons";
import { withParams } from "../../lib/pagination";
import { type Input, int } from "./params";

/** PostHog's actors envelope for the analysis drill-downs. */
export const ActorsResponseSchema = z
  .object({
    results: z.array(z.object({ people: z.array(SerializedPersonSchema), count: z.number().int() })),
    next: z.string().nullable(),
    initial: z.string().optional(),
    missing_persons: z.number().int().optional(),
    is_cached: z.boolean().optional(),
    last_refresh: z.string().optional(),
    correlation: z.unknown().optional(),
  })
  .openapi("AnalysisActors");

export type ActorsResponse = z.infer<typeof ActorsResponseSchema>;

export interface PageRequest {
  limit: number;
  offset: number;
  /** Query parameter names that carry the page (funnel correlation uses its own). */
  limitParam: string;
  offsetParam: string;
}

export const DEFAULT_ACTORS_LIMIT = 100;
export const MAX_ACTORS_LIMIT = 10_000;

/** The page a request asks for (funnel correlation names its own limit and offset parameters). */
export function pageOf(input: Input, limitParam = "limit", offsetParam = "offset"): PageRequest {
  return {
    limit: int(input, limitParam, { min: 1, max: MAX_ACTORS_LIMIT }) ?? DEFAULT_ACTORS_LIMIT,
    offset: int(input, offsetParam, { min: 0 }) ?? 0,
    limitParam,
    offsetParam,
  };
}

/** The rows a page asks the store for: one more than the page, so `next` appears only when another page exists. */
export const rowsOf = (page: PageRequest) => ({ limit: page.limit + 1, offset: page.offset });

/** The request URL with the offset parameter set (and the limit made explicit). */
export function pageUrl(requestUrl: string, page: PageRequest, offset: number) {
  return withParams(requestUrl, { [page.limitParam]: page.limit, [page.offsetParam]: offset });
}

/**
 * Hydrates one page of person ids (fetched with limit + 1 rows, so `next` appears only when
 * another page exists) into the envelope. `missing_persons` counts ids whose person row is gone.
 */
export async function actorsPage(
  db: Db,
  projectId: number,
  ids: number[],
  page: PageRequest,
  requestUrl: string,
  extra: { funnel?: boolean } = {},
): Promise<ActorsResponse> {
  const more = ids.length > page.limit;
  const pageIds = more ? ids.slice(0, page.limit) : ids;
  const people = await hydratePersons(db, projectId, pageIds);
  const body: ActorsResponse = {
    results: [{ people, count: people.length }],
    next: more ? pageUrl(requestUrl, page, page.offset + page.limit) : null,
  };
  if (extra.funnel) {
    body.initial = requestUrl;
    body.missing_persons = pageIds.length - people.length;
    body.is_cached = false;
    body.last_refresh = new Date().toISOString();
  }
  return body;
}
