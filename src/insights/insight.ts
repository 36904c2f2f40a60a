import type { InsightContext } from "./context";
import { type FunnelsResponse, planFunnels, runFunnels } from "./funnels/runner";
import { FunnelsQuery } from "./funnels/schema";
import { type LifecycleResponse, planLifecycle, runLifecycle } from "./lifecycle/runner";
import { planRetention, type RetentionResponse, runRetention } from "./retention/runner";
import { RetentionQuery } from "./retention/schema";
import { LifecycleQuery } from "./lifecycle/schema";
import { planStickiness, runStickiness, type StickinessResponse } from "./stickiness/runner";
import { StickinessQuery } from "./stickiness/schema";
import { planTrends, runTrends, type TrendsResponse } from "./trends/runner";
import { TrendsQuery } from "./trends/schema";

/** The insight kinds edgehog computes, by PostHog's `kind`: each its schema, its plan (what a run refuses) and its runner. */

export type InsightQuery = TrendsQuery | LifecycleQuery | StickinessQuery | RetentionQuery | FunnelsQuery;
export type InsightResponse =
  TrendsResponse | LifecycleResponse | StickinessResponse | RetentionResponse | FunnelsResponse;

export const INSIGHT_SCHEMAS = { TrendsQuery, FunnelsQuery, LifecycleQuery, StickinessQuery, RetentionQuery } as const;
export type InsightKind = keyof typeof INSIGHT_SCHEMAS;

export const isInsightKind = (kind: unknown): kind is InsightKind =>
  typeof kind === "string" && Object.hasOwn(INSIGHT_SCHEMAS, kind);

/** Everything a run of the query would refuse, refused now (a 400 naming the field). */
export function planInsight(query: InsightQuery): void {
  switch (query.kind) {
    case "TrendsQuery":
      planTrends(query);
      return;
    case "LifecycleQuery":
      planLifecycle(query);
      return;
    case "StickinessQuery":
      planStickiness(query);
      return;
    case "RetentionQuery":
      planRetention(query);
      return;
    case "FunnelsQuery":
      planFunnels(query);
      return;
  }
}

export function runInsight(ctx: InsightContext, query: InsightQuery): Promise<InsightResponse> {
  switch (query.kind) {
    case "TrendsQuery":
      return runTrends(ctx, query);
    case "LifecycleQuery":
      return runLifecycle(ctx, query);
    case "StickinessQuery":
      return runStickiness(ctx, query);
    case "RetentionQuery":
      return runRetention(ctx, query);
    case "FunnelsQuery":
      return runFunnels(ctx, query);
  }
}
