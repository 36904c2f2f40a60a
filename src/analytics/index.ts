import type { Db } from "../db/client";
import type { Env } from "../env";
import { clickhouseConnection } from "../lib/config";
import { ownClickHouse } from "./clickhouse/deployment";
import { enqueueRows } from "./clickhouse/queue";
import { ClickHouseAnalyticsStore } from "./clickhouse/store";
import { D1AnalyticsStore } from "./d1/store";
import type { AnalyticsEngine } from "./queries";
import type { AnalyticsStore } from "./store";

export type { AnalyticsStore } from "./store";

/** The engine saved HogQL is compiled for and runs on: ClickHouse when CLICKHOUSE_URL is set, else D1. */
export function analyticsEngine(env: Env): AnalyticsEngine {
  return clickhouseConnection(env) ? "clickhouse" : "d1";
}

/**
 * The analytics store of this deployment (design.md section 9): ClickHouse when CLICKHOUSE_URL is
 * set, else D1, the embedded default. Persons, flags and everything else stay in D1 either way.
 */
export function analyticsStore(env: Env, db: Db): AnalyticsStore {
  const clickhouse = clickhouseConnection(env);
  if (clickhouse) {
    return new ClickHouseAnalyticsStore(
      () => ownClickHouse(clickhouse, env.DB),
      (rows) => enqueueRows(env, rows),
      db,
    );
  }
  return new D1AnalyticsStore(db.$client, db);
}
