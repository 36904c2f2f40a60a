import type { D1Client, Db } from "../../db/client";
import { cohortMembershipSql } from "../../shared/cohorts/membership";
import type { CohortSql } from "../../shared/filters";
import type { PersonsListQuestion } from "../persons-list";
import type * as Q from "../queries";
import type { AnalyticsStore } from "../store";
import { correlation } from "./correlation";
import type { QueryFailure } from "../errors";
import type { DeletedPerson, PersonKey, PersonSplit, TimelineEvent, TimelineEventsQuery } from "../person-events";
import { funnelActorIds } from "./funnel-actors";
import { funnelConversionTimes, funnelSteps, funnelTrends } from "./funnel-steps";
import { runHogQL } from "./hogql";
import { lifecycleActorIds, lifecycleCounts } from "./lifecycle";
import { deleteEventsOf, detachFromDeletedPerson, followDistinctIds, timelineEvents } from "./person-events";
import { classifyD1QueryError } from "./query-errors";
import { deleteEventsBefore } from "./retention";
import { earliestEvent } from "./run";
import { retentionActors, retentionCounts } from "./retention-cohorts";
import { stickinessActorIds, stickinessCounts } from "./stickiness";
import { trendsRows } from "./trends";
import { trendsActorsOnD1 } from "./trends-actors";
import { eventNames, eventPropertyKeys } from "./definitions";

/** Cohort filters need the project's cohort definitions; questions without one skip loading them. */
const noCohorts: CohortSql = () => {
  throw new Error("cohort filter compiled without cohort definitions");
};

/** The embedded engine: events in the same D1 database as everything else, read with SQLite. */
export class D1AnalyticsStore implements AnalyticsStore {
  readonly engine = "d1";

  constructor(
    private readonly d1: D1Client,
    private readonly db: Db,
  ) {}

  earliestEvent(projectId: number): Promise<number | null> {
    return earliestEvent(this.d1, projectId);
  }

  async funnelSteps(query: Q.FunnelStepsQuery): Promise<Q.FunnelStepsRow[]> {
    return funnelSteps(this.d1, query, await this.cohortsFor(query.funnel.projectId, query));
  }

  async funnelConversionTimes(query: Q.FunnelConversionQuery): Promise<Q.FunnelConversionTimes> {
    return funnelConversionTimes(this.d1, query, await this.cohortsFor(query.funnel.projectId, query));
  }

  async funnelTrends(query: Q.FunnelTrendsQuery): Promise<Q.FunnelTrendsRow[]> {
    return funnelTrends(this.d1, query, await this.cohortsFor(query.funnel.projectId, query));
  }

  async funnelActors(query: Q.FunnelActorsQuery): Promise<number[]> {
    return funnelActorIds(this.d1, query, await this.cohortsFor(query.funnel.projectId, query));
  }

  async correlation(query: Q.CorrelationQuery): Promise<Q.CorrelationAnswer> {
    return correlation(this.d1, query, await this.cohortsFor(query.funnel.projectId, query));
  }

  async lifecycle(question: Q.LifecycleQuestion): Promise<Q.LifecycleCount[]> {
    return lifecycleCounts(this.d1, question, await this.cohortsFor(question.projectId, question));
  }

  async lifecycleActors(query: Q.LifecycleActorsQuery): Promise<number[]> {
    return lifecycleActorIds(this.d1, query, await this.cohortsFor(query.question.projectId, query));
  }

  async stickiness(question: Q.StickinessQuestion): Promise<Q.StickinessCount[]> {
    return stickinessCounts(this.d1, question, await this.cohortsFor(question.projectId, question));
  }

  async stickinessActors(query: Q.StickinessActorsQuery): Promise<number[]> {
    return stickinessActorIds(this.d1, query, await this.cohortsFor(query.question.projectId, query));
  }

  async retention(question: Q.RetentionQuestion, last: boolean): Promise<Q.RetentionCount[]> {
    return retentionCounts(this.d1, question, last, await this.cohortsFor(question.projectId, question));
  }

  async retentionActors(query: Q.RetentionActorsQuery): Promise<Q.RetentionActor[]> {
    return retentionActors(this.d1, query, await this.cohortsFor(query.question.projectId, query));
  }

  async trends(question: Q.TrendsQuestion): Promise<Q.TrendsRow[]> {
    return trendsRows(this.d1, question, await this.cohortsFor(question.projectId, question));
  }

  async trendsActors(query: Q.TrendsActorsQuery): Promise<Q.ActorEvents[]> {
    return trendsActorsOnD1(this.d1, query, await this.cohortsFor(query.question.projectId, query));
  }

  eventNames(projectId: number, limit: number): Promise<Q.EventName[]> {
    return eventNames(this.d1, projectId, limit);
  }

  eventPropertyKeys(query: Q.PropertyKeysQuery): Promise<Q.PropertyKeySeen[]> {
    return eventPropertyKeys(this.d1, query);
  }

  runHogQL(statement: Q.HogQLStatement, run: Q.HogQLRun): Promise<Q.QueryRows> {
    return runHogQL(this.d1, statement, run);
  }

  classifyError(error: unknown): QueryFailure {
    return classifyD1QueryError(error);
  }

  deleteEventsBefore(projectId: number, before: string, limit: number): Promise<number> {
    return deleteEventsBefore(this.d1, projectId, before, limit);
  }

  /** D1 keeps no mirror: its persons table is the list, which the persons service reads itself. */
  async personsList(_question: PersonsListQuestion): Promise<undefined> {
    return undefined;
  }

  timelineEvents(query: TimelineEventsQuery): Promise<TimelineEvent[]> {
    return timelineEvents(this.db, query);
  }

  deletePersonEvents(projectId: number, persons: PersonKey[], before: string): Promise<void> {
    return deleteEventsOf(
      this.db,
      projectId,
      persons.map((p) => p.id),
      before,
    );
  }

  /** Nothing to follow: the persons and their distinct ids were D1's own rows, deleted with them. */
  async personsDeleted(_projectId: number, _persons: DeletedPerson[]): Promise<void> {}

  personSplit(projectId: number, split: PersonSplit): Promise<void> {
    return followDistinctIds(this.db, projectId, split.person.id);
  }

  distinctIdReset(projectId: number, distinctId: string): Promise<void> {
    return detachFromDeletedPerson(this.db, projectId, distinctId);
  }

  /** Cohort membership SQL, loaded only when a filter of the question may refer to a cohort. */
  private async cohortsFor(projectId: number, query: object): Promise<CohortSql> {
    return /cohort/.test(JSON.stringify(query)) ? cohortMembershipSql(this.db, projectId) : noCohorts;
  }
}
