import type { RetentionActor, RowWindow } from "../../analytics/queries";
import type { InsightContext } from "../context";
import { planRetention, retentionQuestion } from "./runner";
import type { RetentionQuery } from "./schema";

/**
 * The persons of a retention cohort (PostHog's retention to_actors_query): those counted at 0 in
 * cohort `cohort` (without one, in any cohort), within breakdown value `breakdown` when given. The
 * same question as the table, so the same persons, each with the intervals they are counted at. In
 * id order, or by their number of appearances (`byAppearances`); `rows` of them.
 */
export async function retentionActors(
  ctx: InsightContext,
  query: RetentionQuery,
  pick: { cohort?: number; breakdown?: string },
  rows: RowWindow,
  byAppearances: boolean,
): Promise<RetentionActor[]> {
  const question = await retentionQuestion(ctx, query, planRetention(query));
  if (pick.cohort !== undefined && pick.cohort >= question.periods.length) return [];
  return ctx.store.retentionActors({
    question,
    start: pick.cohort,
    breakdownValue: pick.breakdown,
    byAppearances,
    rows,
  });
}
