import { validationError } from "../../lib/errors";
import {
  DEFAULT_FUNNEL_WINDOW_DAYS,
  type FunnelBreakdown,
  type FunnelOrder,
  type FunnelSpec,
  FUNNEL_WINDOW_UNITS,
  type FunnelWindowUnit,
  MAX_FUNNEL_STEPS,
} from "../../analytics/queries";
import { breakdownValueTexts } from "../../analytics/breakdown-value";
import { type AnalysisContext, requestedRange } from "./context";
import { globalFilters, type Input, int, json, jsonOrText, oneOf, parseEvents, str } from "./params";
import { iso } from "../../lib/time/iso";

function windowSeconds(input: Input): number {
  const days = int(input, "funnel_window_days", { min: 1, max: 3650 });
  const amount = int(input, "funnel_window_interval", { min: 1, max: 100_000 });
  const unit = oneOf(
    input,
    "funnel_window_interval_unit",
    Object.keys(FUNNEL_WINDOW_UNITS) as FunnelWindowUnit[],
    "day",
  );
  if (amount !== undefined) return amount * FUNNEL_WINDOW_UNITS[unit];
  if (days !== undefined) return days * FUNNEL_WINDOW_UNITS.day;
  return DEFAULT_FUNNEL_WINDOW_DAYS * FUNNEL_WINDOW_UNITS.day;
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
  return { keys: keys as string[], list, type, attribution: { kind: attribution } };
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

/** `funnel_step_breakdown`: the breakdown value asked about, as the texts it compares with. */
export function parseStepBreakdown(input: Input): string[] | undefined {
  const raw = jsonOrText(input, "funnel_step_breakdown");
  if (raw === undefined || raw === null) return undefined;
  return breakdownValueTexts(raw, "funnel_step_breakdown");
}
