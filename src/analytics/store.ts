import type {
  CorrelationAnswer,
  CorrelationQuery,
  FunnelActorsQuery,
  LifecycleActorsQuery,
  StickinessActorsQuery,
} from "./queries";

/**
 * The one way to read events for analysis. D1 is the embedded engine (src/analytics/d1/); a second
 * engine (ClickHouse, design.md section 9) implements the same interface beside it, so routes and
 * services do not change. Persons themselves stay in D1: answers are person ids, which the
 * caller hydrates through the persons service.
 */
export interface AnalyticsStore {
  /** The time of a project's first event (UTC ms), for `date_from=all`; null without events. */
  earliestEvent(projectId: number): Promise<number | null>;
  funnelActors(query: FunnelActorsQuery): Promise<number[]>;
  correlation(query: CorrelationQuery): Promise<CorrelationAnswer>;
  lifecycleActors(query: LifecycleActorsQuery): Promise<number[]>;
  stickinessActors(query: StickinessActorsQuery): Promise<number[]>;
}
