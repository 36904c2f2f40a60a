import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../lib/openapi";
import { createRouter, defineRoute } from "../lib/route";
import { FormatQuery } from "../persons/schema";
import { requirePerson } from "../persons/service";
import { ProjectParams } from "../projects/schema";
import { cohortRecord } from "./record";
import { cohortsContainingPerson } from "./service";

const tags = ["persons"];
const BASE = "/api/environments/{project_id}/persons";

const cohorts = defineRoute({
  method: "get",
  path: `${BASE}/cohorts`,
  tags,
  summary: "The cohorts a person belongs to",
  auth: { kind: "personal", scopes: ["person:read", "cohort:read"] },
  request: {
    params: ProjectParams,
    query: z.object({
      person_id: z.string({ message: "This field is required." }).openapi({ description: "Integer id or uuid" }),
      format: FormatQuery.shape.format,
    }),
  },
  responses: { 200: jsonResponse(z.object({ results: z.array(z.record(z.string(), z.unknown())) }), "Cohorts") },
});

/** `GET persons/cohorts?person_id=`: PostHog serves it under persons; it reads cohorts, so it lives here (mounted before persons' `/{id}`). */
export const personCohortsRoutes = createRouter().openapi(cohorts, async (c) => {
  const person = await requirePerson(c.get("db"), c.get("project").id, c.req.valid("query").person_id);
  const rows = await cohortsContainingPerson(c.get("db"), c.get("project").id, person.id);
  // Members are not counted here, as in the cohort list (one scan of the project per cohort).
  return c.json({ results: rows.map((r) => cohortRecord(r, null)) }, 200);
});
