import type { ClickHouseClient } from "@clickhouse/client-web";
import type { Db } from "../../db/client";
import type { QueryFailure } from "../errors";
import type { DeletedPerson, PersonKey, PersonSplit, TimelineEvent, TimelineEventsQuery } from "../person-events";
import type { PersonsListAnswer, PersonsListQuestion } from "../persons-list";
import type * as Q from "../queries";
import type { AnalyticsStore } from "../store";
import { clickhouseCohorts, noClickHouseCohorts } from "./cohorts";
import { correlationOnClickHouse } from "./correlation";
import { funnelActorIdsOnClickHouse } from "./funnel-actors";
import { funnelConversionTimesOnClickHouse, funnelStepsOnClickHouse, funnelTrendsOnClickHouse } from "./funnel-steps";
import { runHogQLOnClickHouse } from "./hogql";
import { lifecycleActorIdsOnClickHouse, lifecycleCountsOnClickHouse } from "./lifecycle";
import { analysisError } from "./analysis-run";
import type { ClickHouseCohorts } from "./property-filters";
import { retentionActorsOnClickHouse, retentionCountsOnClickHouse } from "./retention-cohorts";
import { stickinessActorIdsOnClickHouse, stickinessCountsOnClickHouse } from "./stickiness";
import { trendsRowsOnClickHouse } from "./trends";
import { trendsActorsOnClickHouse } from "./trends-actors";
import { eventNamesOnClickHouse, eventPropertyKeysOnClickHouse } from "./definitions";
import { deletePersonEventsOnClickHouse, timelineEventsOnClickHouse } from "./person-events";
import { deletionRows, resetRows, splitRows } from "./person-mirror";
import { personsListOnClickHouse } from "./persons-list";
import { TEAM_PARAM } from "../../hogql/clickhouse/sql";
import { classifyClickHouseQueryError } from "./query-errors";
import type { ClickHouseRows } from "./rows";
import { queryRows, timeParam } from "./sql";

/**
 * Events in ClickHouse (clickhouse/migrations/), fed through the events queue; HogQL compiled to
 * ClickHouse SQL (src/hogql/clickhouse/) runs here with every value bound as a typed parameter.
 * Person changes reach the persons mirror through `send` (the events queue, queue.ts), so they are
 * written by the same consumer, in order with the events, and survive ClickHouse being down.
 */
export class ClickHouseAnalyticsStore implements AnalyticsStore {
  readonly engine = "clickhouse";

  constructor(
    /**
     * The client, once the database is known to be this deployment's, else throws why
     * (deployment.ts): every read and write asks here.
     */
    private readonly client: () => Promise<ClickHouseClient>,
    private readonly send: (rows: ClickHouseRows) => Promise<void>,
    /** D1, where cohorts (and the persons the answers name) are. */
    private readonly db: Db,
  ) {}

  /** The client for an analysis: a server that cannot be asked is answered as the analysis's own failure. */
  private analysisClient(): Promise<ClickHouseClient> {
    return this.client().catch((error: unknown) => {
      throw analysisError(error);
    });
  }

  async earliestEvent(projectId: number): Promise<number | null> {
    const [row] = await queryRows<{ t: number | null }>(
      await this.client(),
      `SELECT toUnixTimestamp64Milli(minOrNull(timestamp)) AS t FROM events WHERE team_id = ${TEAM_PARAM}`,
      { team_id: projectId },
    );
    return row?.t ?? null;
  }

  async funnelSteps(query: Q.FunnelStepsQuery): Promise<Q.FunnelStepsRow[]> {
    return funnelStepsOnClickHouse(
      await this.analysisClient(),
      query,
      await this.cohortsFor(query.funnel.projectId, query),
    );
  }

  async funnelConversionTimes(query: Q.FunnelConversionQuery): Promise<Q.FunnelConversionTimes> {
    return funnelConversionTimesOnClickHouse(
      await this.analysisClient(),
      query,
      await this.cohortsFor(query.funnel.projectId, query),
    );
  }

  async funnelTrends(query: Q.FunnelTrendsQuery): Promise<Q.FunnelTrendsRow[]> {
    return funnelTrendsOnClickHouse(
      await this.analysisClient(),
      query,
      await this.cohortsFor(query.funnel.projectId, query),
    );
  }

  async funnelActors(query: Q.FunnelActorsQuery): Promise<number[]> {
    return funnelActorIdsOnClickHouse(
      await this.analysisClient(),
      query,
      await this.cohortsFor(query.funnel.projectId, query),
    );
  }

  async correlation(query: Q.CorrelationQuery): Promise<Q.CorrelationAnswer> {
    return correlationOnClickHouse(
      await this.analysisClient(),
      query,
      await this.cohortsFor(query.funnel.projectId, query),
    );
  }

  async lifecycle(question: Q.LifecycleQuestion): Promise<Q.LifecycleCount[]> {
    return lifecycleCountsOnClickHouse(
      await this.analysisClient(),
      question,
      await this.cohortsFor(question.projectId, question),
    );
  }

  async lifecycleActors(query: Q.LifecycleActorsQuery): Promise<number[]> {
    return lifecycleActorIdsOnClickHouse(
      await this.analysisClient(),
      query,
      await this.cohortsFor(query.question.projectId, query),
    );
  }

  async stickiness(question: Q.StickinessQuestion): Promise<Q.StickinessCount[]> {
    return stickinessCountsOnClickHouse(
      await this.analysisClient(),
      question,
      await this.cohortsFor(question.projectId, question),
    );
  }

  async stickinessActors(query: Q.StickinessActorsQuery): Promise<number[]> {
    return stickinessActorIdsOnClickHouse(
      await this.analysisClient(),
      query,
      await this.cohortsFor(query.question.projectId, query),
    );
  }

  async retention(question: Q.RetentionQuestion, last: boolean): Promise<Q.RetentionCount[]> {
    return retentionCountsOnClickHouse(
      await this.analysisClient(),
      question,
      last,
      await this.cohortsFor(question.projectId, question),
    );
  }

  async retentionActors(query: Q.RetentionActorsQuery): Promise<Q.RetentionActor[]> {
    return retentionActorsOnClickHouse(
      await this.analysisClient(),
      query,
      await this.cohortsFor(query.question.projectId, query),
    );
  }

  async trends(question: Q.TrendsQuestion): Promise<Q.TrendsRow[]> {
    return trendsRowsOnClickHouse(
      await this.analysisClient(),
      question,
      await this.cohortsFor(question.projectId, question),
    );
  }

  async trendsActors(query: Q.TrendsActorsQuery): Promise<Q.ActorEvents[]> {
    return trendsActorsOnClickHouse(
      await this.analysisClient(),
      query,
      await this.cohortsFor(query.question.projectId, query),
    );
  }

  async eventNames(projectId: number, limit: number): Promise<Q.EventName[]> {
    return eventNamesOnClickHouse(await this.analysisClient(), projectId, limit);
  }

  async eventPropertyKeys(query: Q.PropertyKeysQuery): Promise<Q.PropertyKeySeen[]> {
    return eventPropertyKeysOnClickHouse(await this.analysisClient(), query);
  }

  async runHogQL(statement: Q.HogQLStatement, run: Q.HogQLRun): Promise<Q.QueryRows> {
    return runHogQLOnClickHouse(
      await this.client(),
      { sql: statement.sql, variables: statement.variables, variableParams: statement.variableParams ?? {}, offset: 0 },
      { teamId: run.projectId, timezone: run.timezone, limit: run.limit, offset: run.offset, values: run.values },
    );
  }

  classifyError(error: unknown): QueryFailure {
    return classifyClickHouseQueryError(error);
  }

  /**
   * Retention on ClickHouse: one lightweight DELETE of every event before the cutoff (the rows are
   * masked at once and purged as parts merge, so no chunking is needed); says how many went.
   */
  async deleteEventsBefore(projectId: number, before: string): Promise<number> {
    const client = await this.client();
    const params = { team_id: projectId, before };
    const where = `team_id = ${TEAM_PARAM} AND timestamp < ${timeParam("before")}`;
    const [{ n }] = await queryRows<{ n: number }>(client, `SELECT count() AS n FROM events WHERE ${where}`, params);
    if (n > 0) await client.command({ query: `DELETE FROM events WHERE ${where}`, query_params: params });
    return n;
  }

  async timelineEvents(query: TimelineEventsQuery): Promise<TimelineEvent[]> {
    return timelineEventsOnClickHouse(await this.client(), query);
  }

  async deletePersonEvents(projectId: number, persons: PersonKey[], before: string): Promise<void> {
    return deletePersonEventsOnClickHouse(await this.client(), projectId, persons, before);
  }

  personsDeleted(projectId: number, persons: DeletedPerson[]): Promise<void> {
    return this.send(deletionRows(projectId, persons));
  }

  personSplit(projectId: number, split: PersonSplit): Promise<void> {
    return this.send(splitRows(projectId, split));
  }

  /** The persons list from the persons mirror (persons-list.ts); D1 reads the page's rows. */
  async personsList(question: PersonsListQuestion): Promise<PersonsListAnswer> {
    return personsListOnClickHouse(
      await this.analysisClient(),
      question,
      await this.cohortsFor(question.projectId, question),
    );
  }

  /** The project's cohorts (from D1), loaded only when a filter of the question may refer to one. */
  private async cohortsFor(projectId: number, query: object): Promise<ClickHouseCohorts> {
    return /cohort/.test(JSON.stringify(query)) ? clickhouseCohorts(this.db, projectId) : noClickHouseCohorts;
  }

  /** Sends nothing when there is nothing to write (enqueueRows sends no empty message). */
  distinctIdReset(projectId: number, distinctId: string, current: PersonKey | null): Promise<void> {
    return this.send(resetRows(projectId, distinctId, current));
  }
}
