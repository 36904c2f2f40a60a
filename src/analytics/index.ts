import type { Db } from "../db/client";
import type { Env } from "../env";
import { D1AnalyticsStore } from "./d1/store";
import type { AnalyticsStore } from "./store";

export type { AnalyticsStore } from "./store";

/** The analytics store of this deployment: D1 (the only engine until ClickHouse lands, design.md section 9). */
export function analyticsStore(env: Env, db: Db): AnalyticsStore {
  return new D1AnalyticsStore(db.$client, db);
}
