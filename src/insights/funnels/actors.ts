import { breakdownValueTexts } from "../../analytics/breakdown-value";
import type { FunnelActorsQuery, RowWindow } from "../../analytics/queries";
import { validationError } from "../../lib/errors";
import type { InsightContext } from "../context";
import { clockOf, parseInstant } from "../../lib/time/date-range";
import { funnelSpec, planFunnels, trendsQuestion } from "./runner";
import type { FunnelsQuery } from "./schema";

/** The bucket of a FunnelsActorsQuery: `funnelStep`, or `funnelCustomSteps`, and `funnelStepBreakdown`. */
export interface FunnelPick {
  funnelStep?: number | null;
  funnelCustomSteps?: number[] | null;
  funnelStepBreakdown?: unknown;
  funnelTrendsDropOff?: boolean | null;
  funnelTrendsEntrancePeriodStart?: string | null;
}

/**
 * The persons of a funnel step (PostHog's FunnelsActorsQuery): `funnelStep` N > 0, those who reached
 * step N (1-based) or further, the persons of step N − 1's `count`; −N, those who reached step N − 1
 * but not step N; or those whose furthest step is one of `funnelCustomSteps`; within one breakdown
 * value when `funnelStepBreakdown` is given. The same per-person funnel as the counts. Person ids in
 * id order, `rows` of them. Errors name the pick's own fields.
 */
export async function funnelActorIds(
  ctx: InsightContext,
  query: FunnelsQuery,
  pick: FunnelPick,
  rows: RowWindow,
): Promise<number[]> {
  planFunnels(query);
  if (query.funnelsFilter?.funnelVizType === "trends") return trendsActorIds(ctx, query, pick, rows);
  const n = query.series.length;
  let bucket: FunnelActorsQuery["bucket"];
  if (pick.funnelCustomSteps?.length) {
    if (pick.funnelCustomSteps.some((s) => !Number.isInteger(s) || s < 1 || s > n))
      throw validationError(`funnelCustomSteps must be steps between 1 and ${n}.`, "funnelCustomSteps");
    bucket = { customSteps: pick.funnelCustomSteps };
  } else {
    const step = pick.funnelStep;
    if (step === null || step === undefined)
      throw validationError("Missing both funnelStep and funnelCustomSteps", "funnelStep");
    // PostHog's messages for the two steps that never name a bucket.
    if (step === 0) throw validationError("Funnel steps are 1-indexed, so step 0 doesn't exist", "funnelStep");
    if (step === -1)
      throw validationError(
        "The first valid drop-off argument for funnelStep is -2. -2 refers to persons who performed the first step but never made it to the second.",
        "funnelStep",
      );
    if (Math.abs(step) > n)
      throw validationError(`funnelStep must be between 1 and ${n}, or between -${n} and -2.`, "funnelStep");
    bucket = { step };
  }
  const value = pick.funnelStepBreakdown;
  const breakdownValue =
    value === null || value === undefined ? undefined : breakdownValueTexts(value, "funnelStepBreakdown");
  const { funnel } = await funnelSpec(ctx, query);
  return ctx.store.funnelActors({ funnel, bucket, ...(breakdownValue ? { breakdownValue } : {}), rows });
}

/**
 * The persons of a funnel trends point (PostHog's funnel trends actors): those who entered in the
 * period starting at `funnelTrendsEntrancePeriodStart` and converted, or with `funnelTrendsDropOff`
 * those who entered and did not (both parameters required, as PostHog).
 */
async function trendsActorIds(ctx: InsightContext, query: FunnelsQuery, pick: FunnelPick, rows: RowWindow) {
  if (pick.funnelTrendsDropOff === null || pick.funnelTrendsDropOff === undefined)
    throw validationError(
      "Actors parameter `funnelTrendsDropOff` must be provided for funnel trends persons!",
      "funnelTrendsDropOff",
    );
  if (!pick.funnelTrendsEntrancePeriodStart)
    throw validationError(
      "Actors parameter `funnelTrendsEntrancePeriodStart` must be provided funnel trends persons!",
      "funnelTrendsEntrancePeriodStart",
    );
  const start = parseInstant(pick.funnelTrendsEntrancePeriodStart, clockOf(ctx), "funnelTrendsEntrancePeriodStart");
  const { funnel, range } = await funnelSpec(ctx, query);
  const period = range.starts.indexOf(start);
  if (period < 0) return [];
  const question = trendsQuestion(query, funnel, range);
  const n = question.funnel.steps.length;
  // Entered: reached the from step; dropped off: entered, not at the last step.
  const droppedOff = Array.from({ length: n - 1 - question.fromStep }, (_, i) => question.fromStep + 1 + i);
  return ctx.store.funnelActors({
    funnel: question.funnel,
    // (No furthest step is 0: nobody drops off when the from step is the last.)
    bucket: pick.funnelTrendsDropOff ? { customSteps: droppedOff.length ? droppedOff : [0] } : { step: n },
    entrance: { periodStarts: question.periodStarts, period },
    rows,
  });
}
