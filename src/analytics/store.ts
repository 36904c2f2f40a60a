import type { QueryFailure } from "./errors";
import type {
  AnalyticsEngine,
  CorrelationAnswer,
  CorrelationQuery,
  FunnelActorsQuery,
  HogQLRun,
  HogQLStatement,
  LifecycleActorsQuery,
  QueryRows,
  StickinessActorsQuery,
} from "./queries";

/**
 * The one way to read events for analysis, HogQL runs and materialization. D1 is the embedded engine
 * (src/analytics/d1/); ClickHouse (src/analytics/clickhouse/, design.md section 9) implements the
 * same interface when CLICKHOUSE_URL is set, so routes and services do not change. Persons themselves stay in D1: answers are person ids, which the
 * caller hydrates through the persons service.
 */
export interface AnalyticsStore {
  /** The engine: saved HogQL is compiled for it (a plan compiled for the other one is recompiled). */
  readonly engine: AnalyticsEngine;
  /** The time of a project's first event (UTC ms), for `date_from=all`; null without events. */
  earliestEvent(projectId: number): Promise<number | null>;
  funnelActors(query: FunnelActorsQuery): Promise<number[]>;
  correlation(query: CorrelationQuery): Promise<CorrelationAnswer>;
  lifecycleActors(query: LifecycleActorsQuery): Promise<number[]>;
  stickinessActors(query: StickinessActorsQuery): Promise<number[]>;
  /**
   * Runs a saved HogQL query compiled for this engine (src/hogql/), with its bound values: endpoint
   * runs and materialization refreshes both read through here.
   */
  runHogQL(statement: HogQLStatement, run: HogQLRun): Promise<QueryRows>;
  /** What an error thrown by `runHogQL` means for the caller: this engine's errors, classified. */
  classifyError(error: unknown): QueryFailure;
  /**
   * Deletes up to `limit` of a project's events older than `before` (ISO 8601 UTC), oldest first,
   * and says how many went. Retention calls it repeatedly, so no single statement runs long. An
   * engine that deletes by predicate cheaply (ClickHouse) removes them all at once.
   */
  deleteEventsBefore(projectId: number, before: string, limit: number): Promise<number>;
}
