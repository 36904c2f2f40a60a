import { z } from "@hono/zod-openapi";

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 10_000;

/** `limit` / `offset` query parameters shared by every list. */
export const PaginationQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .optional()
    .openapi({ description: `Page size (default ${DEFAULT_LIMIT}).` }),
  offset: z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .openapi({ description: "Rows to skip (default 0)." }),
});

export interface Page {
  limit: number;
  offset: number;
}

export function pageOf(query: { limit?: number; offset?: number }, defaultLimit = DEFAULT_LIMIT): Page {
  return { limit: query.limit ?? defaultLimit, offset: query.offset ?? 0 };
}

/** The request URL with the given query parameters set, every other parameter kept (absolute page links). */
export function withParams(requestUrl: string, params: Record<string, string | number>): string {
  const url = new URL(requestUrl);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, String(value));
  return url.toString();
}

/** The request URL with `limit` and `offset` set, every other parameter kept. */
export const pageUrl = (requestUrl: string, limit: number, offset: number) => withParams(requestUrl, { limit, offset });

/**
 * Absolute `next`/`previous` links of a limit/offset page over `count` rows; `more` says whether rows
 * follow the page when the list knows it otherwise (its count may be remembered from an earlier page).
 */
export function pageLinks(requestUrl: string, page: Page, count: number, more = page.offset + page.limit < count) {
  const { limit, offset } = page;
  return {
    next: more ? pageUrl(requestUrl, limit, offset + limit) : null,
    previous: offset > 0 ? pageUrl(requestUrl, limit, Math.max(0, offset - limit)) : null,
  };
}

/** PostHog's list envelope: `{count, next, previous, results}` (`more`: see pageLinks). */
export function paginated<T>(requestUrl: string, page: Page, count: number, results: T[], more?: boolean) {
  return { count, ...pageLinks(requestUrl, page, count, more), results };
}

/**
 * A list route's answer: the page its query asks for, read by `load` (the page's rows and the count
 * of all), each row rendered by `record`, in PostHog's envelope.
 */
export async function paginatedList<Row, Item>(
  requestUrl: string,
  query: { limit?: number; offset?: number },
  load: (page: Page) => Promise<{ rows: Row[]; count: number }>,
  record: (row: Row) => Item,
) {
  const page = pageOf(query);
  const { rows, count } = await load(page);
  const results = rows.map((row) => record(row));
  return paginated(requestUrl, page, count, results);
}

export const paginatedSchema = <T extends z.ZodTypeAny>(item: T) =>
  z.object({
    count: z.number().int(),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    results: z.array(item),
  });
