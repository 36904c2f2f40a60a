import type { AnalyticsStore } from "../analytics";
import type { WeekStart } from "../lib/time/zone";
import { type Project, weekStartOf } from "../projects/service";

/** What an insight is computed in: the project (zone, week start, test-account filters), "now", and where events are read. */
export interface InsightContext extends InsightSettings {
  now: number;
  store: AnalyticsStore;
}

/** The project's settings an insight's answer depends on (a cached or stored answer is for these). */
export interface InsightSettings {
  projectId: number;
  timezone: string;
  weekStart: WeekStart;
  testAccountFilters: unknown[];
}

export const insightSettingsOf = (project: Project): InsightSettings => ({
  projectId: project.id,
  timezone: project.timezone,
  weekStart: weekStartOf(project),
  testAccountFilters: project.testAccountFilters,
});
