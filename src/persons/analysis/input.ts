import { z } from "@hono/zod-openapi";
import { validationError } from "../../lib/errors";
import { type Input, mergeInput, str } from "./params";

/**
 * A query parameter a route does not declare: the services read more of PostHog's filter
 * parameters than the route schemas document, so the validated query keeps them all. A repeated
 * one counts by its first value, as `c.req.query()` reads it; declared parameters stay single strings.
 */
const UndeclaredParam = z.union([z.string(), z.array(z.string()).transform((values) => values[0])]);

/** A route's documented query parameters, plus every other parameter of the query string. */
export const withUndeclaredParams = <S extends z.ZodRawShape>(query: z.ZodObject<S>) => query.catchall(UndeclaredParam);

/**
 * What the analysis services compute from: the validated query string merged with the validated
 * JSON body (the body wins), as PostHog reads these parameters. `search` is refused here, before
 * any work: drill-downs filter with `properties`.
 */
export function analysisInput(query: Record<string, string>, body?: Record<string, unknown>): Input {
  const input = mergeInput(query, body);
  if (str(input, "search") !== undefined)
    throw validationError("search is not supported on analysis drill-downs; use properties.", "search");
  return input;
}
