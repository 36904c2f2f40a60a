import type { AnalyticsStore } from "../analytics";
import type { QueryFailure } from "../analytics/errors";
import type { AnalyticsEngine } from "../analytics/queries";
import { ApiError } from "../lib/errors";
import type { InsightSettings } from "../insights/context";
import type { InsightQuery } from "../insights/insight";
import {
  createMaterializedInsightsTable,
  dropMaterializedInsight,
  isInsightTooLarge,
  materializeInsight,
  storeMaterializedInsight,
} from "./insight-materialization";
import {
  copyToStaging,
  dropTable,
  MATERIALIZE_PAGE_ROWS,
  MAX_MATERIALIZED_ROWS,
  swapTable,
  TooManyRows,
} from "./materialized-table";

interface ConfigBase {
  version: number;
  projectId: number;
  /** The project's time zone when configured (ClickHouse reads timestamps in it). */
  timezone: string;
  /** The engine `sql` was compiled for (absent in configs saved before ClickHouse: D1). */
  engine: AnalyticsEngine;
  syncFrequency: string;
  syncSeconds: number;
}

/** A HogQL version: its rows copied into a table of the Durable Object (configs saved before insights have no `kind`). */
export interface HogQLMaterializationConfig extends ConfigBase {
  kind?: "hogql";
  /** The transformed query (variables as columns), bound only with the project, read in pages. */
  sql: string;
  variables: string[];
  /** The query is an ungrouped aggregate: a value with no stored row must run inline (count 0, ...). */
  singleRow: boolean;
}

/** An insight version: its computed result kept (insight-materialization.ts), in the project's settings of each refresh. */
export interface InsightMaterializationConfig extends ConfigBase {
  kind: "insight";
  query: InsightQuery;
}

export type MaterializationConfig = HogQLMaterializationConfig | InsightMaterializationConfig;
export interface MaterializationStatus {
  status: "Completed" | "Running" | "Failed";
  last_materialized_at: string | null;
  error: string;
  sync_frequency: string;
  /** How many refreshes have run (tests use it to check serialization). */
  refreshes: number;
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
 * The materialized versions of one endpoint, in its Durable Object's storage: their configuration
 * and status, refreshes (one in flight per version, concurrent callers share it) and the alarm
 * that runs them on each version's sync frequency.
 */
export class Refresher {
  private readonly inflight = new Map<number, Promise<MaterializationStatus | null>>();
  /** Page size and row cap of refresh copies (materialized-table.ts); a test may lower them on its instance. */
  copyLimits = { pageSize: MATERIALIZE_PAGE_ROWS, maxRows: MAX_MATERIALIZED_ROWS };

  constructor(
    private readonly storage: DurableObjectStorage,
    /** Where the versions' queries run (src/analytics/). */
    private readonly store: AnalyticsStore,
    /** Called after a version's table is replaced (its cached run results are stale). */
    private readonly onRefreshed: (version: number) => void,
    /** A project's current settings, which an insight is computed in (undefined: the project is gone). */
    private readonly insightSettings: (projectId: number) => Promise<InsightSettings | undefined>,
  ) {}

  createTable(): void {
    this.storage.sql
      .exec(`CREATE TABLE IF NOT EXISTS materializations (version INTEGER PRIMARY KEY, config TEXT NOT NULL, status TEXT NOT NULL,
      last_materialized_at TEXT, error TEXT NOT NULL DEFAULT '', next_run_at INTEGER NOT NULL, refreshes INTEGER NOT NULL DEFAULT 0,
      columns TEXT NOT NULL DEFAULT '[]')`);
    createMaterializedInsightsTable(this.storage.sql);
  }

  /** Enables (or re-times) materialization of a version; the first refresh runs right away from the alarm. */
  async configure(config: MaterializationConfig): Promise<MaterializationStatus> {
    const existing = this.row(config.version);
    const last = existing?.last_materialized_at ? Date.parse(existing.last_materialized_at) : null;
    const nextRun =
      last === null ? Date.now() : Math.min(last + config.syncSeconds * 1000, Date.now() + config.syncSeconds * 1000);
    this.storage.sql.exec(
      `INSERT INTO materializations (version, config, status, next_run_at) VALUES (?, ?, 'Running', ?)
       ON CONFLICT (version) DO UPDATE SET config = excluded.config, next_run_at = excluded.next_run_at`,
      config.version,
      JSON.stringify(config),
      nextRun,
    );
    await this.schedule();
    return this.status(config.version) as MaterializationStatus;
  }

  async disable(version: number): Promise<void> {
    this.storage.sql.exec("DELETE FROM materializations WHERE version = ?", version);
    dropTable(this.storage.sql, version);
    dropMaterializedInsight(this.storage.sql, version);
    await this.schedule();
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

  /** When a version's materialization may be read: its last refresh succeeded, within the sync interval. */
  readyAt(version: number): string | null {
    return this.ready(version)?.at ?? null;
  }

  /** A materialized table is used only when its last refresh succeeded and is within the sync interval. */
  readyTable(version: number): { at: string; columns: string[]; singleRow: boolean } | null {
    const ready = this.ready(version);
    if (!ready || ready.config.kind === "insight") return null;
    return {
      at: ready.at,
      columns: JSON.parse(ready.row.columns) as string[],
      singleRow: !!ready.config.singleRow,
    };
  }

  /** The version's row and configuration when its last refresh succeeded within the sync interval. */
  private ready(version: number) {
    const row = this.row(version);
    if (row?.status !== "Completed" || !row.last_materialized_at) return null;
    const config = JSON.parse(row.config) as MaterializationConfig;
    if (Date.parse(row.last_materialized_at) + config.syncSeconds * 1000 <= Date.now()) return null;
    return { row, config, at: row.last_materialized_at };
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

  /** The alarm: every version whose refresh is due, one after another, then the next alarm. */
  async refreshDue(): Promise<void> {
    const due = this.storage.sql
      .exec<{ version: number }>("SELECT version FROM materializations WHERE next_run_at <= ?", Date.now())
      .toArray();
    for (const { version } of due) await this.refresh(version);
    await this.schedule();
  }

  private row(version: number): ConfigRow | undefined {
    return this.storage.sql.exec<ConfigRow>("SELECT * FROM materializations WHERE version = ?", version).toArray()[0];
  }

  private async runRefresh(version: number): Promise<MaterializationStatus | null> {
    const row = this.row(version);
    if (!row) return null;
    const config = currentConfig(JSON.parse(row.config) as MaterializationConfig);
    const sql = this.storage.sql;
    sql.exec("UPDATE materializations SET status = 'Running' WHERE version = ?", version);
    const nextRun = () => Date.now() + config.syncSeconds * 1000;
    try {
      if (config.engine !== this.store.engine) throw new EngineChanged();
      if (config.kind === "insight") {
        const settings = await this.insightSettings(config.projectId);
        if (!settings) throw new ProjectGone();
        const result = await materializeInsight(this.store, settings, config.query);
        if (!this.row(version)) return null; // disabled while it ran
        this.storage.transactionSync(() => {
          storeMaterializedInsight(sql, version, result);
          this.completed(version, nextRun(), []);
        });
        this.onRefreshed(version);
        await this.schedule();
        return this.status(version);
      }
      const { columns } = await copyToStaging(
        this.store,
        this.storage,
        version,
        config,
        this.copyLimits.pageSize,
        this.copyLimits.maxRows,
      );
      if (!this.row(version)) {
        dropTable(sql, version); // disabled while the copy ran
        return null;
      }
      this.storage.transactionSync(() => {
        swapTable(sql, version, config.variables.length);
        this.completed(version, nextRun(), columns);
      });
      this.onRefreshed(version);
    } catch (error) {
      const failure: QueryFailure =
        error instanceof TooManyRows ||
        error instanceof EngineChanged ||
        error instanceof ProjectGone ||
        isInsightTooLarge(error)
          ? { kind: "query", message: (error as Error).message }
          : error instanceof ApiError && error.status < 500
            ? { kind: "query", message: error.detail }
            : this.store.classifyError(error);
      if (failure.kind === "server")
        console.error(`materialization of version ${version} failed on the database side`, failure.detail);
      // The status is shown to callers: the query's own error cleaned, a misconfiguration as it is
      // (for the operator), another server-side failure generic.
      const message =
        failure.kind === "query"
          ? failure.message
          : failure.kind === "misconfigured"
            ? `The refresh failed: ${failure.detail} It is retried at the next sync.`
            : "The refresh failed because of a database error; it is retried at the next sync.";
      sql.exec(
        "UPDATE materializations SET status = 'Failed', error = ?, next_run_at = ?, refreshes = refreshes + 1 WHERE version = ?",
        message,
        nextRun(),
        version,
      );
    }
    await this.schedule();
    return this.status(version);
  }

  private completed(version: number, nextRun: number, columns: string[]) {
    this.storage.sql.exec(
      "UPDATE materializations SET status = 'Completed', error = '', last_materialized_at = ?, next_run_at = ?, refreshes = refreshes + 1, columns = ? WHERE version = ?",
      new Date().toISOString(),
      nextRun,
      JSON.stringify(columns),
      version,
    );
  }

  private async schedule(): Promise<void> {
    const next = this.storage.sql
      .exec<{ at: number | null }>("SELECT min(next_run_at) AS at FROM materializations")
      .one().at;
    if (next === null) await this.storage.deleteAlarm();
    else await this.storage.setAlarm(next);
  }
}

class ProjectGone extends Error {
  constructor() {
    super("The endpoint's project no longer exists.");
  }
}

/** The deployment moved its events to the other engine since the version was configured. */
class EngineChanged extends Error {
  constructor() {
    super("The query was compiled for the other analytics engine; the next run of the endpoint recompiles it.");
  }
}

/** A config as stored by an older release: D1's SQL, without its paging parameters (and maybe with a row cap). */
function currentConfig(config: MaterializationConfig): MaterializationConfig {
  if (config.engine || config.kind === "insight") return config;
  return {
    ...config,
    engine: "d1",
    timezone: "UTC",
    sql: `${config.sql.replace(/\s+LIMIT \d+\s*$/i, "")} LIMIT ?2 OFFSET ?3`,
  };
}
