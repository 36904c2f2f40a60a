import type { AnalyticsStore } from "../../analytics";
import type { Db } from "../../db/client";
import { clockOf, type DateRange, resolveDateRange } from "../../lib/time/date-range";
import type { WeekStart } from "../../lib/time/zone";
import { type Input, str } from "./params";

/** What every drill-down computes in: the project, "now", where events are read and where persons are. */
export interface AnalysisContext {
  projectId: number;
  timezone: string;
  /** The project's first day of a week (`week_start_day`). */
  weekStart: WeekStart;
  now: number;
  /** The project's test-account filters (applied on `filter_test_accounts=true`). */
  testAccountFilters: unknown[];
  /** Where the events are read (src/analytics/). */
  store: AnalyticsStore;
  /** The persons hydrated into the answer stay in D1 whatever the store. */
  db: Db;
}

/** The request's `date_from`/`date_to` in the project's zone (`all` starts at the project's first event). */
export const requestedRange = (ctx: AnalysisContext, input: Input): Promise<DateRange> =>
  resolveDateRange({ date_from: str(input, "date_from"), date_to: str(input, "date_to") }, clockOf(ctx), () =>
    ctx.store.earliestEvent(ctx.projectId),
  );
