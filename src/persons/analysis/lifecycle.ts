import { LIFECYCLE_TYPES, type LifecycleType } from "../../analytics/queries";
import { validationError } from "../../lib/errors";
import { type AnalysisContext, requestedRange } from "./context";
import { clockOf, parseInstant } from "../../lib/time/date-range";
import { globalFilters, type Input, interval, parseEvents, str } from "./params";
import { type ActorsResponse, actorsPage, pageOf, rowsOf } from "./response";
import { startOfInterval } from "../../lib/time/zone";
import { lifecyclePeriods } from "../../analytics/periods";

/** Lifecycle actors: the persons of one status (`lifecycle_type`) in the period of `target_date`. */
export async function lifecycleActors(ctx: AnalysisContext, input: Input, requestUrl: string): Promise<ActorsResponse> {
  const target = str(input, "target_date");
  if (target === undefined) throw validationError("Must include specified date", "target_date", "required");
  const type = str(input, "lifecycle_type");
  if (type === undefined) throw validationError("Must include lifecycle type", "lifecycle_type", "required");
  if (!(LIFECYCLE_TYPES as readonly string[]).includes(type)) {
    throw validationError(`lifecycle_type must be one of: ${LIFECYCLE_TYPES.join(", ")}.`, "lifecycle_type");
  }
  const series = parseEvents(input, { min: 1, max: 1 })[0];
  const unit = interval(input);
  const page = pageOf(input);
  const zone = ctx.timezone;
  const range = await requestedRange(ctx, input);
  const first = startOfInterval(range.from, unit, zone, ctx.weekStart);
  const last = startOfInterval(range.to - 1, unit, zone, ctx.weekStart);
  const T = startOfInterval(parseInstant(target, clockOf(ctx), "target_date"), unit, zone, ctx.weekStart);
  if (T < first || T > last) return actorsPage(ctx.db, ctx.projectId, [], page, requestUrl);

  // The lifecycle up to T: its last period is T's (its status depends on no later one).
  const question = {
    projectId: ctx.projectId,
    series,
    properties: globalFilters(input, ctx.testAccountFilters),
    ...lifecyclePeriods(first, T, unit, zone, ctx.weekStart),
  };
  const period = question.periods.length - 1;
  const ids = await ctx.store.lifecycleActors({ question, period, status: type as LifecycleType, rows: rowsOf(page) });
  return actorsPage(ctx.db, ctx.projectId, ids, page, requestUrl);
}
