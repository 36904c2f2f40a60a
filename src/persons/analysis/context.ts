import type { AnalyticsStore } from "../../analytics";
import type { Db } from "../../db/client";

/** What every drill-down computes in: the project, "now", where events are read and where persons are. */
export interface AnalysisContext {
  projectId: number;
  timezone: string;
  now: number;
  /** The project's first event (UTC ms), for `date_from=all`. */
  earliest: () => Promise<number | null>;
  /** The project's test-account filters (applied on `filter_test_accounts=true`). */
  testAccountFilters: unknown[];
  /** Where the events are read (src/analytics/). */
  store: AnalyticsStore;
  /** The persons hydrated into the answer stay in D1 whatever the store. */
  db: Db;
}
