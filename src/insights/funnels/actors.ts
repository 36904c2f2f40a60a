import { breakdownValueTexts } from "../../analytics/breakdown-value";
import type { FunnelActorsQuery, RowWindow } from "../../analytics/queries";
import { validationError } from "../../lib/errors";
import { clockOf, parseInstant } from "../../lib/time/date-range";
import type { InsightContext } from "../context";
import { funnelSpec, trendsQuestion } from "./runner";
import type { FunnelsQuery } from "./schema";

/** The fields of a FunnelsActorsQuery that pick its persons, as sent. */
export interface FunnelPick {
  funnelStep?: number | null;
  funnelCustomSteps?: number[] | null;
  funnelStepBreakdown?: unknown;
  funnelTrendsDropOff?: boolean | null;
  funnelTrendsEntrancePeriodStart?: string | null;
}

/** A pick, checked: a steps bucket (and breakdown value), or a funnel trends entrance period. */
export type FunnelBucket =
  | { kind: "steps"; bucket: FunnelActorsQuery["bucket"]; breakdownValue?: string[] }
  | { kind: "trends"; start: number; dropOff: boolean };

/**
 * What a FunnelsActorsQuery asks for, checked with PostHog's messages (a 400 names the pick's own
 * field): `funnelStep` N > 0, those who reached step N (1-based) or further, the persons of step
 * N − 1's `count`; −N, those who reached step N − 1 but not step N; or those whose furthest step is
 * one of `funnelCustomSteps`; within one breakdown value when `funnelStepBreakdown` is given. A
 * funnel trends query asks for an entrance period instead (both trends fields required).
 */
export function funnelBucket(ctx: InsightContext, query: FunnelsQuery, pick: FunnelPick): FunnelBucket {
  if (query.funnelsFilter?.funnelVizType === "trends") {
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
    return { kind: "trends", start, dropOff: pick.funnelTrendsDropOff };
  }
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
  if (value === null || value === undefined) return { kind: "steps", bucket };
  return { kind: "steps", bucket, breakdownValue: breakdownValueTexts(value, "funnelStepBreakdown") };
}

/**
 * The persons of a checked FunnelsActorsQuery (a query already parsed and planned), from the same
 * per-person funnel as the counts. Person ids in id order, `rows` of them. A funnel trends point's
 * persons are those who entered in the period and converted, or with `dropOff` those who entered
 * and did not.
 */
export async function funnelActorIds(
  ctx: InsightContext,
  query: FunnelsQuery,
  pick: FunnelBucket,
  rows: RowWindow,
): Promise<number[]> {
  const { funnel, range } = await funnelSpec(ctx, query);
  if (pick.kind === "steps") {
    const breakdownValue = pick.breakdownValue ? { breakdownValue: pick.breakdownValue } : {};
    return ctx.store.funnelActors({ funnel, bucket: pick.bucket, ...breakdownValue, rows });
  }
  const period = range.starts.indexOf(pick.start);
  if (period < 0) return [];
  const question = trendsQuestion(query, funnel, range);
  const n = question.funnel.steps.length;
  // Entered: reached the from step; dropped off: entered, not at the last step (nobody, when the from step is the last).
  const droppedOff = Array.from({ length: n - 1 - question.fromStep }, (_, i) => question.fromStep + 1 + i);
  if (pick.dropOff && !droppedOff.length) return [];
  return ctx.store.funnelActors({
    funnel: question.funnel,
    bucket: pick.dropOff ? { customSteps: droppedOff } : { step: n },
    entrance: { periodStarts: question.periodStarts, period },
    rows,
  });
}
