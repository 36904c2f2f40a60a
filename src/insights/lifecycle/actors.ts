import type { LifecycleType, RowWindow } from "../../analytics/queries";
import { startOfInterval } from "../../lib/time/zone";
import type { InsightContext } from "../context";
import { queryRange } from "../date-range";
import { lifecycleQuestion } from "./runner";
import type { LifecycleQuery } from "./schema";

/**
 * The persons behind a lifecycle result (PostHog's lifecycle to_actors_query): those with `status`
 * in the bucket of `day` (an instant in it, e.g. one of the result's `days`); without a day, in any
 * bucket of the range; without a status, any status. The same question as the counts, so the same
 * persons. Person ids in id order, `rows` of them; `query` is one parseInsightQuery accepted.
 */
export async function lifecycleActorIds(
  ctx: InsightContext,
  query: LifecycleQuery,
  pick: { day?: number; status?: LifecycleType },
  rows: RowWindow,
): Promise<number[]> {
  const range = await queryRange(ctx, query);
  let period: number | undefined;
  if (pick.day !== undefined) {
    const index = range.starts.indexOf(startOfInterval(pick.day, range.interval, ctx.timezone, ctx.weekStart));
    if (index < 0) return [];
    // Period p of the question is bucket p − 1 (period 0 is the one before the range).
    period = index + 1;
  }
  const question = lifecycleQuestion(ctx, query, range);
  return ctx.store.lifecycleActors({ question, period, status: pick.status, rows });
}
