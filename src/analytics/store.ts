import type { QueryFailure } from "./errors";
import type { PersonsListAnswer, PersonsListQuestion } from "./persons-list";
import type { DeletedPerson, PersonKey, PersonSplit, TimelineEvent, TimelineEventsQuery } from "./person-events";
import type {
  ActorEvents,
  AnalyticsEngine,
  CorrelationAnswer,
  CorrelationQuery,
  FunnelActorsQuery,
  FunnelConversionQuery,
  FunnelConversionTimes,
  FunnelStepsQuery,
  FunnelStepsRow,
  FunnelTrendsQuery,
  FunnelTrendsRow,
  HogQLRun,
  HogQLStatement,
  LifecycleActorsQuery,
  LifecycleCount,
  LifecycleQuestion,
  QueryRows,
  RetentionActor,
  RetentionActorsQuery,
  RetentionCount,
  RetentionQuestion,
  StickinessActorsQuery,
  StickinessCount,
  StickinessQuestion,
  TrendsActorsQuery,
  TrendsQuestion,
  TrendsRow,
  EventName,
  PropertyKeySeen,
  PropertyKeysQuery,
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
  /** A funnel's steps per breakdown value: persons by furthest step, conversion times (insights' steps view). */
  funnelSteps(query: FunnelStepsQuery): Promise<FunnelStepsRow[]>;
  /** The time persons took from one funnel step to another (insights' time to convert). */
  funnelConversionTimes(query: FunnelConversionQuery): Promise<FunnelConversionTimes>;
  /** Funnel trends: per entrance period, persons who entered and who converted (insights' trends view). */
  funnelTrends(query: FunnelTrendsQuery): Promise<FunnelTrendsRow[]>;
  /** The persons of a funnel bucket: the same per-person funnel as the counts. */
  funnelActors(query: FunnelActorsQuery): Promise<number[]>;
  correlation(query: CorrelationQuery): Promise<CorrelationAnswer>;
  /** A lifecycle's persons per period and status (no row where there are none). */
  lifecycle(question: LifecycleQuestion): Promise<LifecycleCount[]>;
  lifecycleActors(query: LifecycleActorsQuery): Promise<number[]>;
  /** A stickiness histogram: persons per number of active windows (no row where there are none). */
  stickiness(question: StickinessQuestion): Promise<StickinessCount[]>;
  stickinessActors(query: StickinessActorsQuery): Promise<number[]>;
  /** A retention table: persons per cohort, breakdown value and interval (`last`: by their last return). */
  retention(question: RetentionQuestion, last: boolean): Promise<RetentionCount[]>;
  retentionActors(query: RetentionActorsQuery): Promise<RetentionActor[]>;
  /** One trends series: its value per bucket (and breakdown value); insights (src/insights/) shape the rest. */
  trends(question: TrendsQuestion): Promise<TrendsRow[]>;
  /** The persons of one point of a trends series, from the same series match as `trends`. */
  trendsActors(query: TrendsActorsQuery): Promise<ActorEvents[]>;
  /** The project's event names (at most `limit`, by name) and when each was last seen: the event definitions. */
  eventNames(projectId: number, limit: number): Promise<EventName[]>;
  /** The property keys seen on a project's latest events: the event property definitions. */
  eventPropertyKeys(query: PropertyKeysQuery): Promise<PropertyKeySeen[]>;
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

  /**
   * A persons list from the engine's own mirror of the persons, or undefined when it keeps none to
   * ask (D1: the persons table is the list itself, which persons/service.ts reads). The answer may lag
   * D1 by what the events queue has not delivered yet; the caller reads the rows from D1.
   */
  personsList(question: PersonsListQuestion): Promise<PersonsListAnswer | undefined>;

  // Persons operations outside ingestion (person-events.ts): D1 has changed the persons; the events follow.

  /** The events a person's properties timeline replays. */
  timelineEvents(query: TimelineEventsQuery): Promise<TimelineEvent[]>;
  /** Deletes these persons' events stored before `before` (ISO 8601 UTC): person DELETE and bulk_delete with delete_events. */
  deletePersonEvents(projectId: number, persons: PersonKey[], before: string): Promise<void>;
  /** These persons and their distinct ids were deleted from D1 (their events stay unless deleted above). */
  personsDeleted(projectId: number, persons: DeletedPerson[]): Promise<void>;
  /** Distinct ids left a person for new persons of their own (split): their past events follow them. */
  personSplit(projectId: number, split: PersonSplit): Promise<void>;
  /**
   * reset_person_distinct_id: the id's past events that still belong to its deleted person follow
   * the id's current person (`current`, read from D1), or none.
   */
  distinctIdReset(projectId: number, distinctId: string, current: PersonKey | null): Promise<void>;
}
