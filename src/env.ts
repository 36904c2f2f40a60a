import type { ClickHouseRows } from "./analytics/clickhouse/rows";
import type { EndpointMaterializer } from "./endpoints/materializer";
import type { Db } from "./db/client";
import type { Principal } from "./lib/auth/principal";
import type { Authenticator } from "./lib/route";
import type { Project } from "./projects/service";

/**
 * Bindings declared in wrangler.toml, and the variables and secrets the worker reads. Read those
 * through `setting()` (src/lib/config.ts), which validates them; docs/operations.md lists them.
 */
export interface Env {
  DB: D1Database;
  /** Local-evaluation flag definitions, one entry per project and cohort variant. */
  FLAGS_KV: KVNamespace;
  ENDPOINT_MATERIALIZER: DurableObjectNamespace<EndpointMaterializer>;
  /**
   * With ClickHouse configured: rows for ClickHouse (events, the persons mirror), inserted by the
   * queue consumer (src/analytics/clickhouse/consumer.ts). Declared only in ClickHouse deployments.
   */
  EVENTS_QUEUE?: Queue<ClickHouseRows>;
  /** The bundled API reference viewer (Workers static assets). */
  ASSETS?: Fetcher;
  /** Secret: the deployment's root credential (unset until configured; `setting()` says so). */
  ROOT_API_KEY?: string;
  /** Origins (comma-separated, or `*`) whose browsers may call the management API; the SDK surface allows every origin. */
  CORS_ALLOWED_ORIGINS?: string;
  /** Days of events to keep (the scheduled run deletes older ones); unset keeps everything. */
  EVENT_RETENTION_DAYS?: string;
  /** ClickHouse's HTTP interface; set, events are stored there and analytical reads run there (docs/operations.md). */
  CLICKHOUSE_URL?: string;
  CLICKHOUSE_USER?: string;
  /** Secret. */
  CLICKHOUSE_PASSWORD?: string;
  CLICKHOUSE_DATABASE?: string;
}

export type AppVariables = {
  requestId: string;
  db: Db;
  /** Checks the key of routes declared with personal or root auth (src/auth/middleware.ts). */
  authenticate: Authenticator;
  /**
   * Rebuilds a project's cached flag definitions (src/flags/definitions-cache.ts). Areas below
   * flags whose data the definitions embed (cohorts, the project's time zone) call it after a
   * write; app.ts provides it so they need not import flags.
   */
  refreshFlagDefinitions: (projectId: number) => Promise<void>;
  /** Set by the auth middleware on routes that take a personal API key or the root key. */
  principal: Principal;
  /** Set by the auth middleware on routes with a `:project_id` path parameter. */
  project: Project;
};

export type AppEnv = { Bindings: Env; Variables: AppVariables };
