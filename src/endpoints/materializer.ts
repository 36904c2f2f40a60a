import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { type Cell, executeCompiled, type QueryRows } from "./execute";
import { classifyQueryError, type QueryFailure } from "./query-errors";
import { copyToStaging, dropTable, MATERIALIZE_PAGE_ROWS, MAX_MATERIALIZED_ROWS, readTable, swapTable, TooManyRows } from "./materialized-table";
import { ResultCache } from "./result-cache";

export interface MaterializationConfig {
  version: number;
  projectId: number;
  /** The transformed query (variables as columns), bound only with the project id. */
  sql: string;
  variables: string[];
  /** The query is an ungrouped aggregate: a value with no stored row must run inline (count 0, ...). */
  singleRow: boolean;
  syncFrequency: string;
  syncSeconds: number;
}
export interface MaterializationStatus {
  status: "Completed" | "Running" | "Failed";
  last_materialized_at: string | null;
  error: string;
  sync_frequency: string;
  /** How many refreshes have run (tests use it to check serialization). */
  refreshes: number;
}
export interface RunInput {
  version: number;
  sql: string;
  params: Cell[];
  limit: number;
  offset: number;
  cacheKey: string;
  cacheAgeSeconds: number;
  refresh: "cache" | "force" | "direct";
  /** Values of the materialized variables, in config order, when the version is materialized. */
  materialized: Cell[] | null;
}
/** D1 refused the query; the raw message, which the worker classifies (query-errors.ts) before anyone sees it. */
export interface RunFailure {
  error: string;
}
export interface RunOutput extends QueryRows {
  hasMore: boolean;
  is_cached: boolean;
  last_refresh: string;
  materialized_at: string | null;
  /** Milliseconds spent reading the rows (D1 or the stored table); 0 for a cache hit. */
  execute_ms: number;
}

interface ConfigRow extends Record<string, SqlStorageValue> {
  version: number;
  config: string;
  status: string;
  last_materialized_at: string | null;
  error: string;
  next_run_at: number;
  refreshes: number;
  /** Output columns of the stored table (JSON), kept apart from the config, which configure() replaces. */
  columns: string;
}

/**
 * One instance per saved-query endpoint (idFromName(endpoint id)), SQLite-backed. It serializes
 * materialization refreshes (one in flight per version), stores each materialized version's rows in
 * its own table, refreshes them on the sync frequency with alarms, caches run results for the
 * version's cache age, and remembers the last execution for last_execution_times.
 */
export class EndpointMaterializer extends DurableObject<Env> {
  private readonly inflight = new Map<number, Promise<MaterializationStatus | null>>();
  private readonly cache: ResultCache;
  /** Page size and row cap of refresh copies (materialized-table.ts); a test may lower them on its instance. */
  copyLimits = { pageSize: MATERIALIZE_PAGE_ROWS, maxRows: MAX_MATERIALIZED_ROWS };

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.cache = new ResultCache(ctx.storage.sql);
    this.createTables();
  }

  private createTables() {
    const sql = this.ctx.storage.sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS materializations (version INTEGER PRIMARY KEY, config TEXT NOT NULL, status TEXT NOT NULL,
      last_materialized_at TEXT, error TEXT NOT NULL DEFAULT '', next_run_at INTEGER NOT NULL, refreshes INTEGER NOT NULL DEFAULT 0,
      columns TEXT NOT NULL DEFAULT '[]')`);
    sql.exec("CREATE TABLE IF NOT EXISTS last_execution (id INTEGER PRIMARY KEY CHECK (id = 1), at TEXT NOT NULL, version INTEGER NOT NULL)");
    this.cache.createTable();
  }

  /** Enables (or re-times) materialization of a version; the first refresh runs right away from the alarm. */
  async configure(config: MaterializationConfig): Promise<MaterializationStatus> {
    const existing = this.row(config.version);
    const last = existing?.last_materialized_at ? Date.parse(existing.last_materialized_at) : null;
    const nextRun = last === null ? Date.now() : Math.min(last + config.syncSeconds * 1000, Date.now() + config.syncSeconds * 1000);
    this.ctx.storage.sql.exec(
      `INSERT INTO materializations (version, config, status, next_run_at) VALUES (?, ?, 'Running', ?)
       ON CONFLICT (version) DO UPDATE SET config = excluded.config, next_run_at = excluded.next_run_at`,
      config.version, JSON.stringify(config), nextRun,
    );
    await this.schedule();
    return this.status(config.version) as MaterializationStatus;
  }

  async disable(version: number): Promise<void> {
    this.ctx.storage.sql.exec("DELETE FROM materializations WHERE version = ?", version);
    dropTable(this.ctx.storage.sql, version);
    this.cache.dropVersion(version);
    await this.schedule();
  }

  /** The endpoint is deleted: every materialization, cached result and log goes. */
  async destroy(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.createTables(); // the instance may still be called (e.g. a run racing the delete)
  }

  status(version: number): MaterializationStatus | null {
    const row = this.row(version);
    if (!row) return null;
    const config = JSON.parse(row.config) as MaterializationConfig;
    return {
      status: row.status as MaterializationStatus["status"],
      last_materialized_at: row.last_materialized_at,
      error: row.error,
      sync_frequency: config.syncFrequency,
      refreshes: row.refreshes,
    };
  }

  lastExecution(): { at: string; version: number } | null {
    return this.ctx.storage.sql.exec<{ at: string; version: number }>("SELECT at, version FROM last_execution").toArray()[0] ?? null;
  }

  /** Refreshes a version's table; concurrent callers share the refresh already in flight. */
  refresh(version: number): Promise<MaterializationStatus | null> {
    let running = this.inflight.get(version);
    if (!running) {
      running = this.runRefresh(version).finally(() => this.inflight.delete(version));
      this.inflight.set(version, running);
    }
    return running;
  }

  async alarm(): Promise<void> {
    const due = this.ctx.storage.sql.exec<{ version: number }>("SELECT version FROM materializations WHERE next_run_at <= ?", Date.now()).toArray();
    for (const { version } of due) await this.refresh(version);
    await this.schedule();
  }

  async run(input: RunInput): Promise<RunOutput | RunFailure> {
    this.recordExecution(input.version);
    let ready = input.materialized && input.refresh !== "direct" ? this.readyTable(input.version) : null;
    if (input.refresh === "cache") {
      const cached = this.cache.get(input.cacheKey, input.cacheAgeSeconds, ready?.at ?? null);
      if (cached) return { ...cached, is_cached: true, execute_ms: 0 };
    }
    const started = performance.now();
    let rows: QueryRows;
    const stored = ready && input.materialized ? readTable(this.ctx.storage.sql, input.version, ready.columns, input.materialized, input.limit + 1, input.offset) : null;
    if (stored && stored.results.length === 0 && ready?.singleRow) ready = null;
    if (stored && ready) rows = stored;
    else {
      try {
        rows = await executeCompiled(this.env.DB, input.sql, input.params);
      } catch (error) {
        return { error: error instanceof Error ? error.message : String(error) };
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

  /** The last execution, to the minute: a write per run would hold every response on a storage flush. */
  private recordExecution(version: number) {
    const last = this.lastExecution();
    if (last && last.version === version && Date.parse(last.at) > Date.now() - 60_000) return;
    this.ctx.storage.sql.exec(
      "INSERT INTO last_execution (id, at, version) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at, version = excluded.version",
      new Date().toISOString(), version,
    );
  }

  private row(version: number): ConfigRow | undefined {
    return this.ctx.storage.sql.exec<ConfigRow>("SELECT * FROM materializations WHERE version = ?", version).toArray()[0];
  }

  /** A materialized table is used only when its last refresh succeeded and is within the sync interval. */
  private readyTable(version: number): { at: string; columns: string[]; singleRow: boolean } | null {
    const row = this.row(version);
    if (!row || row.status !== "Completed" || !row.last_materialized_at) return null;
    const config = JSON.parse(row.config) as MaterializationConfig;
    if (Date.parse(row.last_materialized_at) + config.syncSeconds * 1000 <= Date.now()) return null;
    return { at: row.last_materialized_at, columns: JSON.parse(row.columns) as string[], singleRow: !!config.singleRow };
  }

  private async runRefresh(version: number): Promise<MaterializationStatus | null> {
    const row = this.row(version);
    if (!row) return null;
    const config = JSON.parse(row.config) as MaterializationConfig;
    const sql = this.ctx.storage.sql;
    sql.exec("UPDATE materializations SET status = 'Running' WHERE version = ?", version);
    const nextRun = () => Date.now() + config.syncSeconds * 1000;
    try {
      const { columns } = await copyToStaging(this.env.DB, this.ctx.storage, version, config, this.copyLimits.pageSize, this.copyLimits.maxRows);
      if (!this.row(version)) {
        dropTable(sql, version); // disabled while the copy ran
        return null;
      }
      this.ctx.storage.transactionSync(() => {
        swapTable(sql, version, config.variables.length);
        sql.exec(
          "UPDATE materializations SET status = 'Completed', error = '', last_materialized_at = ?, next_run_at = ?, refreshes = refreshes + 1, columns = ? WHERE version = ?",
          new Date().toISOString(), nextRun(), JSON.stringify(columns), version,
        );
      });
      this.cache.dropVersion(version);
    } catch (error) {
      const failure: QueryFailure = error instanceof TooManyRows ? { kind: "query", message: error.message } : classifyQueryError(error);
      if (failure.kind === "server") console.error(`materialization of version ${version} failed on the database side`, failure.detail);
      // The status is shown to callers: the query's own error cleaned, a server-side failure generic.
      const message = failure.kind === "query" ? failure.message : "The refresh failed because of a database error; it is retried at the next sync.";
      sql.exec("UPDATE materializations SET status = 'Failed', error = ?, next_run_at = ?, refreshes = refreshes + 1 WHERE version = ?", message, nextRun(), version);
    }
    await this.schedule();
    return this.status(version);
  }

  private async schedule(): Promise<void> {
    const next = this.ctx.storage.sql.exec<{ at: number | null }>("SELECT min(next_run_at) AS at FROM materializations").one().at;
    if (next === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(next);
  }
}

