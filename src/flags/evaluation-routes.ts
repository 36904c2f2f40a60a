import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { validationError } from "../lib/errors";
import { jsonBody, jsonResponse as json } from "../lib/openapi";
import { createRouter, defineRoute } from "../lib/route";
import { ProjectParams } from "../projects/schema";
import { DefinitionsSchema } from "./definitions-schema";
import { cohortVariant, definitionsFor, definitionsResponse } from "./definitions-response";
import { userBlastRadius } from "./blast-radius";
import { evaluateForRequest } from "./evaluate-request";
import { BASE, read, tags } from "./route-constants";

const GroupsQuery = z
  .string()
  .optional()
  .openapi({ description: "JSON object `{group type: group key}` (default `{}`)." });

/** `groups` as PostHog reads it from a query string. */
function parseGroups(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw validationError("Invalid JSON in groups parameter", "groups");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw validationError("groups must be a JSON object", "groups");
  return value as Record<string, unknown>;
}

const reasons = defineRoute({
  method: "get",
  path: `${BASE}/evaluation_reasons`,
  tags,
  summary: "Every flag's value and evaluation reason for one distinct id",
  auth: read,
  request: { params: ProjectParams, query: z.object({ distinct_id: z.string().min(1), groups: GroupsQuery }) },
  responses: {
    200: json(
      z.record(
        z.string(),
        z.object({ value: z.union([z.boolean(), z.string()]), evaluation: z.record(z.string(), z.unknown()) }),
      ),
      "By flag key",
    ),
  },
});

const localEvaluation = defineRoute({
  method: "get",
  path: `${BASE}/local_evaluation`,
  tags,
  summary: "Flag definitions for SDK local evaluation (same payload as /flags/definitions)",
  auth: read,
  request: { params: ProjectParams, query: z.object({ send_cohorts: z.string().optional() }) },
  responses: { 200: json(DefinitionsSchema, "Definitions (ETag set)"), 304: { description: "Unchanged" } },
});

const myFlags = defineRoute({
  method: "get",
  path: `${BASE}/my_flags`,
  tags,
  summary: "Every live flag and its value for a distinct id (default: the calling key's label)",
  auth: read,
  request: {
    params: ProjectParams,
    query: z.object({
      groups: GroupsQuery,
      distinct_id: z
        .string()
        .min(1)
        .optional()
        .openapi({ description: "Whom to evaluate for; defaults to the calling key's label." }),
    }),
  },
  responses: {
    200: json(
      z.array(z.object({ feature_flag: z.record(z.string(), z.unknown()), value: z.union([z.boolean(), z.string()]) })),
      "Flags and values",
    ),
  },
});

const blastRadius = defineRoute({
  method: "post",
  path: `${BASE}/user_blast_radius`,
  tags,
  summary: "How many persons (or groups of a type) a release condition's properties match, of how many",
  auth: read,
  request: {
    params: ProjectParams,
    body: jsonBody(
      z.object({
        condition: z
          .record(z.string(), z.unknown())
          .optional()
          .openapi({ description: "A release condition: `{properties, rollout_percentage}`." }),
        group_type_index: z.number().int().min(0).nullable().optional(),
      }),
    ),
  },
  responses: { 200: json(z.object({ users_affected: z.number().int(), total_users: z.number().int() }), "Counts") },
});

const flagValue = (r: { enabled: boolean; variant: string | null }) => (r.enabled ? (r.variant ?? true) : false);

async function evaluateFor(c: Context<AppEnv>, distinctId: string, groups: Record<string, unknown>) {
  const evaluation = await evaluateForRequest(c.env, c.get("db"), c.get("project").apiToken, { distinctId, groups });
  return evaluation!;
}

export const flagEvaluationRoutes = createRouter()
  .openapi(reasons, async (c) => {
    const { distinct_id, groups } = c.req.valid("query");
    const { results, flags } = await evaluateFor(c, distinct_id, parseGroups(groups));
    const out: Record<string, { value: boolean | string; evaluation: Record<string, unknown> }> = {};
    for (const r of Object.values(results)) {
      out[r.key] = {
        value: flagValue(r),
        evaluation: {
          reason: r.reason.code,
          condition_index: r.reason.condition_index,
          description: r.reason.description,
        },
      };
    }
    for (const f of flags)
      if (!f.active) out[f.key] = { value: false, evaluation: { reason: "disabled", condition_index: null } };
    return c.json(out, 200);
  })
  .openapi(localEvaluation, async (c) => {
    const entry = await definitionsFor(
      c,
      c.get("project").apiToken,
      cohortVariant(c.req.valid("query").send_cohorts ?? "false"),
    );
    return definitionsResponse(c, entry!);
  })
  .openapi(blastRadius, async (c) => {
    const { condition, group_type_index } = c.req.valid("json");
    if (!condition) throw validationError("Missing condition for which to get blast radius", "condition");
    return c.json(await userBlastRadius(c.get("db"), c.get("project").id, condition, group_type_index ?? null), 200);
  })
  .openapi(myFlags, async (c) => {
    const { groups, distinct_id } = c.req.valid("query");
    const { results, flags } = await evaluateFor(c, distinct_id ?? c.get("principal").label, parseGroups(groups));
    const newestFirst = [...flags].sort((a, b) => b.id - a.id);
    return c.json(
      newestFirst.map((f) => ({ feature_flag: f, value: results[f.key] ? flagValue(results[f.key]) : false })),
      200,
    );
  });
