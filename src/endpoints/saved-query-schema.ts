import { z } from "@hono/zod-openapi";
import type { InsightQuery } from "../insights/insight";
import { LifecycleQuery } from "../insights/lifecycle/schema";
import { RetentionQuery } from "../insights/retention/schema";
import { FunnelsQuery } from "../insights/funnels/schema";
import { StickinessQuery } from "../insights/stickiness/schema";
import { TrendsQuery } from "../insights/trends/schema";

/** PostHog's InsightVariable types. */
export const VARIABLE_TYPES = ["String", "Number", "Boolean", "List", "Date"] as const;

/**
 * A variable as stored in `query.variables` (keyed by its id, as PostHog's InsightVariable
 * reference). Other keys PostHog sends are kept as they came.
 */
export const VariableDefSchema = z
  .object({
    variableId: z.string().optional(),
    code_name: z.string().describe("The name the query uses: `{variables.<code_name>}`."),
    value: z.unknown().optional().describe("The value bound when a run sends none."),
    type: z
      .enum(VARIABLE_TYPES)
      .optional()
      .describe("PostHog's InsightVariable type; inferred from `value` if absent."),
    isNull: z.boolean().optional(),
  })
  .loose()
  .openapi("EndpointVariable");

/**
 * A saved HogQL query as stored and echoed back. Other keys of PostHog's
 * HogQLQuery (its null-valued optionals are dropped when saved) are kept as they came.
 */
export const HogQLQuerySchema = z
  .object({
    kind: z.literal("HogQLQuery"),
    query: z.string().describe("The HogQL SELECT."),
    variables: z.record(z.string(), VariableDefSchema).optional().describe("Variables, keyed by variable id."),
  })
  .loose()
  .openapi("HogQLQuery");

export type VariableDef = z.infer<typeof VariableDefSchema>;
export type HogQLQuery = z.infer<typeof HogQLQuerySchema>;

/** What an endpoint version saves: a HogQL query or an insight (run by src/insights/). */
export const SavedQuerySchema = z
  .union([HogQLQuerySchema, TrendsQuery, FunnelsQuery, LifecycleQuery, StickinessQuery, RetentionQuery])
  .openapi("SavedQuery");
export type SavedQuery = HogQLQuery | InsightQuery;

export const isHogQL = (query: unknown): query is HogQLQuery => (query as { kind?: unknown }).kind === "HogQLQuery";
