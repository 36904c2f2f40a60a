import { ApiError, fromZodError, validationError } from "../lib/errors";
import { planTrends } from "./trends/runner";
import { TrendsQuery } from "./trends/schema";

/** PostHog's insight kinds edgehog does not compute yet: named in the refusal rather than called unknown. */
const NOT_YET = ["FunnelsQuery", "RetentionQuery", "LifecycleQuery", "StickinessQuery", "PathsQuery"];

/**
 * An insight query as PostHog's JSON: validated (its shape, then what a run would refuse: filters,
 * breakdown, formulas, math), every problem a 400 whose `attr` is the field's path under `attr`
 * (e.g. `query__series__0__math`).
 */
export function parseInsightQuery(raw: Record<string, unknown>, attr: string): TrendsQuery {
  const kind = String(raw.kind);
  if (kind !== "TrendsQuery") {
    const why = NOT_YET.includes(kind) ? " (edgehog computes TrendsQuery insights so far)" : "";
    throw validationError(`Unsupported query kind: ${kind}${why}`, `${attr}__kind`);
  }
  const parsed = TrendsQuery.safeParse(raw);
  if (!parsed.success) throw fromZodError(parsed.error).under(attr);
  try {
    planTrends(parsed.data);
  } catch (error) {
    throw error instanceof ApiError ? error.under(attr) : error;
  }
  return parsed.data;
}
