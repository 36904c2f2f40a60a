import { ApiError, fromZodError, validationError } from "../lib/errors";
import { INSIGHT_SCHEMAS, type InsightQuery, isInsightKind, planInsight } from "./insight";

/** PostHog's insight kinds edgehog does not compute yet: named in the refusal rather than called unknown. */
const NOT_YET = ["PathsQuery"];

/**
 * An insight query as PostHog's JSON: validated (its shape, then what a run would refuse: filters,
 * breakdown, formulas, math), every problem a 400 whose `attr` is the field's path under `attr`
 * (e.g. `query__series__0__math`).
 */
export function parseInsightQuery(raw: Record<string, unknown>, attr: string): InsightQuery {
  const kind = raw.kind;
  if (!isInsightKind(kind)) {
    const why = NOT_YET.includes(String(kind))
      ? ` (edgehog computes ${Object.keys(INSIGHT_SCHEMAS).join(", ")} insights so far)`
      : "";
    throw validationError(`Unsupported query kind: ${String(kind)}${why}`, `${attr}__kind`);
  }
  const parsed = INSIGHT_SCHEMAS[kind].safeParse(raw);
  if (!parsed.success) throw fromZodError(parsed.error).under(attr);
  try {
    planInsight(parsed.data);
  } catch (error) {
    throw error instanceof ApiError ? error.under(attr) : error;
  }
  return parsed.data;
}
