import type { CountOperator, RowWindow } from "../../analytics/queries";
import { clockOf } from "../../lib/time/date-range";
import type { InsightContext } from "../context";
import { previousRange, queryRange } from "../date-range";
import { stickinessQuestion } from "./runner";
import type { StickinessQuery } from "./schema";

/**
 * The persons behind a stickiness result (PostHog's stickiness to_actors_query): those of series
 * `series` (default the first) active in `day` intervals, compared by `operator` (default exactly;
 * at least in a cumulative query, as its data counts them); without a day, every active person. In
 * the previous period with `compare: "previous"`. The same question as the counts, so the same
 * persons. Person ids in id order, `rows` of them; `query` is one parseInsightQuery accepted.
 */
export async function stickinessActorIds(
  ctx: InsightContext,
  query: StickinessQuery,
  pick: { day?: number; series?: number; compare?: "current" | "previous"; operator?: CountOperator },
  rows: RowWindow,
): Promise<number[]> {
  const order = pick.series ?? 0;
  const node = query.series[order];
  const current = await queryRange(ctx, query);
  const range =
    pick.compare === "previous"
      ? previousRange(current, query.dateRange ?? {}, query.compareFilter?.compare_to, clockOf(ctx))
      : current;
  const cumulative = query.stickinessFilter?.computedAs === "cumulative";
  return ctx.store.stickinessActors({
    question: stickinessQuestion(ctx, query, node, order, range),
    activePeriods: pick.day ?? 1,
    operator: pick.day === undefined || cumulative ? "gte" : (pick.operator ?? "exact"),
    rows,
  });
}
