import { validationError } from "../../lib/errors";
import type { FunnelBreakdown, FunnelOrder, FunnelSpec } from "../../analytics/queries";
import { type AnalysisContext, requestedRange } from "./context";
import { globalFilters, type Input, int, json, jsonOrText, oneOf, parseEvents, str } from "./params";
import { iso } from "../../lib/time/iso";

export const MAX_FUNNEL_STEPS = 20;

/** Seconds per `funnel_window_interval_unit`; a month is 30 days, as PostHog's DATERANGE_MAP. */
const UNIT_SECONDS = { second: 1, minute: 60, hour: 3600, day: 86_400, week: 604_800, month: 2_592_000 } as const;
type WindowUnit = keyof typeof UNIT_SECONDS;

function windowSeconds(input: Input): number {
  const days = int(input, "funnel_window_days", { min: 1, max: 3650 });
  const amount = int(input, "funnel_window_interval", { min: 1, max: 100_000 });
  const unit = oneOf(input, "funnel_window_interval_unit", Object.keys(UNIT_SECONDS) as WindowUnit[], "day");
  if (amount !== undefined) return amount * UNIT_SECONDS[unit];
  if (days !== undefined) return days * UNIT_SECONDS.day;
  return 14 * UNIT_SECONDS.day;
}

/** More properties than this in one list breakdown is a 400 (each adds lookups to every person's row). */
const MAX_BREAKDOWN_PROPERTIES = 10;

function breakdownOf(input: Input): FunnelBreakdown | undefined {
  const raw = jsonOrText(input, "breakdown");
  if (raw === undefined) return undefined;
  const list = Array.isArray(raw);
  const keys = list ? raw : [raw];
  if (!keys.length) return undefined;
  if (keys.length > MAX_BREAKDOWN_PROPERTIES)
    throw validationError(`A breakdown lists at most ${MAX_BREAKDOWN_PROPERTIES} properties.`, "breakdown");
  if (keys.some((k) => typeof k !== "string" || !k))
    throw validationError("breakdown must be a property name or a JSON list of them.", "breakdown");
  const type = oneOf(
    input,
    "breakdown_type",
    ["event", "person", "cohort", "group", "hogql", "session", "data_warehouse"] as const,
    "event",
  );
  if (type !== "event" && type !== "person") {
    throw validationError(`breakdown_type "${type}" is not supported (event and person only).`, "breakdown_type");
  }
  const attribution = oneOf(
    input,
    "breakdown_attribution_type",
    ["first_touch", "last_touch", "all_events", "step"] as const,
    "first_touch",
  );
  if (attribution !== "first_touch" && attribution !== "last_touch") {
    throw validationError(
      `breakdown_attribution_type "${attribution}" is not supported (first_touch and last_touch only).`,
      "breakdown_attribution_type",
    );
  }
  return { keys: keys as string[], list, type, attribution };
}

/** The funnel filter of a request: steps, range, window, order, filters and breakdown. */
export async function parseFunnel(input: Input, ctx: AnalysisContext): Promise<FunnelSpec> {
  const steps = parseEvents(input, { min: 1, max: MAX_FUNNEL_STEPS });
  const order = oneOf<FunnelOrder>(input, "funnel_order_type", ["ordered", "strict", "unordered"], "ordered");
  if (json(input, "exclusions") !== undefined && (json(input, "exclusions") as unknown[]).length) {
    throw validationError("Funnel exclusions are not supported.", "exclusions");
  }
  if (str(input, "aggregation_group_type_index") !== undefined) {
    throw validationError(
      "Funnels aggregated by groups are not supported; funnels count persons.",
      "aggregation_group_type_index",
    );
  }
  const range = await requestedRange(ctx, input);
  return {
    projectId: ctx.projectId,
    steps,
    from: iso(range.from),
    to: iso(range.to),
    windowSeconds: windowSeconds(input),
    order,
    properties: globalFilters(input, ctx.testAccountFilters),
    breakdown: breakdownOf(input),
  };
}

/** `funnel_step`: N = reached step N (or further); -N (N ≥ 2) = reached step N-1 but not step N. */
export function parseFunnelStep(input: Input, steps: number, fallback?: number): number {
  const step = int(input, "funnel_step") ?? fallback;
  if (step === undefined) throw validationError("funnel_step is required.", "funnel_step");
  // PostHog's messages for the two steps that never name a bucket.
  if (step === 0) throw validationError("Funnel steps are 1-indexed, so step 0 doesn't exist", "funnel_step");
  if (step === -1) {
    throw validationError(
      "The first valid drop-off argument for funnelStep is -2. -2 refers to persons who performed the first step but never made it to the second.",
      "funnel_step",
    );
  }
  if (Math.abs(step) > steps) {
    throw validationError(`funnel_step must be between 1 and ${steps}, or between -${steps} and -2.`, "funnel_step");
  }
  return step;
}

/**
 * `funnel_step_breakdown` as the list of texts a breakdown value compares with: a value is a list
 * of one, lists are flattened as PostHog's arrayFlatten does, and no value (`null`, `""`) is `""`.
 * A number on its own is cut to an integer first, as PostHog does (`str(int(value))`).
 */
export function parseStepBreakdown(input: Input): string[] | undefined {
  const raw = jsonOrText(input, "funnel_step_breakdown");
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === "number") return [String(Math.trunc(raw))];
  const texts: string[] = [];
  const add = (value: unknown, depth: number) => {
    if (Array.isArray(value) && depth < 3) for (const v of value) add(v, depth + 1);
    else if (value === null || value === undefined) texts.push("");
    else if (typeof value === "object")
      throw validationError(
        "funnel_step_breakdown must be a breakdown value or a list of them.",
        "funnel_step_breakdown",
      );
    else texts.push(String(value));
  };
  add(raw, 0);
  return texts;
}
