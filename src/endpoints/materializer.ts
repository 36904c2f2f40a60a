import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { type AnalyticsStore, analyticsStore } from "../analytics";
import type { QueryRows } from "../analytics/queries";
import { createDb } from "../db/client";
import { readTable } from "./materialized-table";
import { type MaterializationConfig, type MaterializationStatus, Refresher } from "./refresher";
import { ResultCache } from "./result-cache";
import type { InsightRunInput, InsightRunOutput, RunFailure, RunInput, RunOutput, RunRejected } from "./run-protocol";
import { readMaterializedInsight } from "./insight-materialization";
import { type InsightResponse, runInsight } from "../insights/insight";
import { ApiError } from "../lib/errors";
import { insightSettingsOf } from "../insights/context";
import { getProject } from "../projects/service";

export type { MaterializationConfig, MaterializationStatus } from "./refresher";

/**
 * One instance per saved-query endpoint (idFromName(endpoint id)), SQLite-backed. It serializes
 * materialization refreshes (one in flight per version), stores each materialized version's rows in
 * its own table, refreshes them on the sync frequency with alarms, caches run results for the
 * version's cache age, and remembers the last execution for last_execution_times.
 */
export class EndpointMaterializer extends DurableObject<Env> {
  private readonly cache: ResultCache;
  private readonly store: AnalyticsStore;
  readonly refresher: Refresher;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.cache = new ResultCache(ctx.storage.sql);
    this.store = analyticsStore(env, createDb(env.DB));
    const db = createDb(env.DB);
    this.refresher = new Refresher(
      ctx.storage,
      this.store,
      (version) => this.cache.dropVersion(version),
      async (projectId) => {
        const project = await getProject(db, projectId);
        return project && insightSettingsOf(project);
      },
    );
    this.createTables();
  }

  private createTables() {
    const sql = this.ctx.storage.sql;
    this.refresher.createTable();
    sql.exec(
      "CREATE TABLE IF NOT EXISTS last_execution (id INTEGER PRIMARY KEY CHECK (id = 1), at TEXT NOT NULL, version INTEGER NOT NULL)",
    );
    this.cache.createTable();
  }

  /** Enables (or re-times) materialization of a version; the first refresh runs right away from the alarm. */
  configure(config: MaterializationConfig): Promise<MaterializationStatus> {
    return this.refresher.configure(config);
  }

  async disable(version: number): Promise<void> {
    await this.refresher.disable(version);
    this.cache.dropVersion(version);
  }

  /** The endpoint is deleted: every materialization, cached result and log goes. */
  async destroy(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.createTables(); // the instance may still be called (e.g. a run racing the delete)
  }

  status(version: number): MaterializationStatus | null {
    return this.refresher.status(version);
  }

  lastExecution(): { at: string; version: number } | null {
    return (
      this.ctx.storage.sql
        .exec<{ at: string; version: number }>("SELECT at, version FROM last_execution")
        .toArray()[0] ?? null
    );
  }

  /** Refreshes a version's table; concurrent callers share the refresh already in flight. */
  refresh(version: number): Promise<MaterializationStatus | null> {
    return this.refresher.refresh(version);
  }

  async alarm(): Promise<void> {
    await this.refresher.refreshDue();
  }

  async run(input: RunInput): Promise<RunOutput | RunFailure> {
    this.recordExecution(input.version);
    let ready = input.materialized && input.refresh !== "direct" ? this.refresher.readyTable(input.version) : null;
    if (input.refresh === "cache") {
      const cached = this.cache.get<RunOutput>(input.cacheKey, input.cacheAgeSeconds, ready?.at ?? null);
      if (cached) return { ...cached, is_cached: true, execute_ms: 0 };
    }
    const started = performance.now();
    let rows: QueryRows;
    const stored =
      ready && input.materialized
        ? readTable(
            this.ctx.storage.sql,
            input.version,
            ready.columns,
            input.materialized,
            input.limit + 1,
            input.run.offset,
          )
        : null;
    if (stored && stored.results.length === 0 && ready?.singleRow) ready = null;
    if (stored && ready) rows = stored;
    else {
      try {
        rows = await this.store.runHogQL(input.statement, input.run);
      } catch (error) {
        return { failure: this.store.classifyError(error) };
      }
    }
    const hasMore = rows.results.length > input.limit;
    const output: RunOutput = {
      ...rows,
      results: rows.results.slice(0, input.limit),
      hasMore,
      is_cached: false,
      last_refresh: new Date().toISOString(),
      materialized_at: ready?.at ?? null,
      execute_ms: performance.now() - started,
    };
    // A read of the stored table costs about what a cache hit does: only inline results are cached.
    if (!ready) this.cache.put(input.cacheKey, input.version, output);
    return output;
  }

  /**
   * Runs an insight version: a fresh cached result, else its materialized result (when the run may
   * read it and it is ready), else computed now (and cached).
   */
  async runInsight(input: InsightRunInput): Promise<InsightRunOutput | RunRejected | RunFailure> {
    this.recordExecution(input.version);
    const readyAt = input.materialized && input.refresh !== "direct" ? this.refresher.readyAt(input.version) : null;
    const stored =
      readyAt && input.materialized
        ? readMaterializedInsight(
            this.ctx.storage.sql,
            input.version,
            input.settings,
            input.materialized.breakdownValue,
          )
        : null;
    if (stored && readyAt)
      return { response: stored, is_cached: false, last_refresh: readyAt, materialized_at: readyAt, execute_ms: 0 };
    if (input.refresh === "cache") {
      const cached = this.cache.get<InsightRunOutput>(input.cacheKey, input.cacheAgeSeconds, null);
      if (cached) return { ...cached, is_cached: true, execute_ms: 0 };
    }
    const started = performance.now();
    let response: InsightResponse;
    try {
      response = await runInsight({ ...input.settings, now: Date.now(), store: this.store }, input.query);
    } catch (error) {
      if (error instanceof ApiError) return { rejected: { ...error.toBody(), status: error.status } };
      return { failure: this.store.classifyError(error) };
    }
    const output: InsightRunOutput = {
      response,
      is_cached: false,
      last_refresh: new Date().toISOString(),
      materialized_at: null,
      execute_ms: performance.now() - started,
    };
    this.cache.put(input.cacheKey, input.version, output);
    return output;
  }

  /** The last execution, to the minute: a write per run would hold every response on a storage flush. */
  private recordExecution(version: number) {
    const last = this.lastExecution();
    if (last && last.version === version && Date.parse(last.at) > Date.now() - 60_000) return;
    this.ctx.storage.sql.exec(
      "INSERT INTO last_execution (id, at, version) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at, version = excluded.version",
      new Date().toISOString(),
      version,
    );
  }
}
