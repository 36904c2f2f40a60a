import { z } from "@hono/zod-openapi";
import { analyticsStore } from "../analytics";
import { validationError } from "../lib/errors";
import { jsonBody, jsonResponse } from "../lib/openapi";
import { createRouter, defineRoute } from "../lib/route";
import { ProjectParams } from "../projects/schema";
import { deletePersons, findPersonsForBulkDelete } from "./deletion";
import { FormatQuery, PersonParams, PersonSchema, SuccessSchema } from "./schema";
import { personRecord } from "./serialize";
import { requirePerson } from "./service";
import { resetDistinctId } from "./reset-distinct-id";
import { splitPerson } from "./split";
import { deletePersonProperty, setPersonProperties } from "./writes";

const tags = ["persons"];
const BASE = "/api/environments/{project_id}/persons";
const MAX_BULK = 1000;

const post = <B extends z.ZodTypeAny>(
  path: string,
  summary: string,
  body: B,
  response: ReturnType<typeof jsonResponse>,
  params: z.ZodTypeAny = PersonParams,
) =>
  defineRoute({
    method: "post",
    path,
    tags,
    summary,
    auth: { kind: "personal", scopes: ["person:write"] },
    request: { params: params as typeof PersonParams, query: FormatQuery, body: jsonBody(body) },
    responses: { 200: response },
  });

const updateProperty = post(
  `${BASE}/{id}/update_property`,
  "Set one person property (captures and applies a $set event)",
  z
    .object({ key: z.string().min(1), value: z.unknown() })
    .refine((b) => "value" in b, { message: "This field is required.", path: ["value"] }),
  jsonResponse(PersonSchema, "The person after the update"),
);
const deleteProperty = post(
  `${BASE}/{id}/delete_property`,
  "Remove one person property (captures a $delete_person_property event with $unset)",
  z.object({ $unset: z.string().min(1) }),
  jsonResponse(PersonSchema, "The person after the update"),
);
const split = post(
  `${BASE}/{id}/split`,
  "Split a merged person: distinct ids move to new persons of their own",
  z.object({
    main_distinct_id: z.string().nullable().optional(),
    distinct_ids_to_split: z.array(z.string(), { message: "must be a list of strings" }).optional(),
  }),
  jsonResponse(SuccessSchema, "Split"),
);
const BulkDeleteResult = z
  .object({
    persons_found: z.number().int(),
    persons_deleted: z.number().int(),
    events_queued_for_deletion: z
      .boolean()
      .openapi({ description: "True when events were deleted (immediately, not queued)." }),
    recordings_queued_for_deletion: z.boolean().openapi({ description: "Always false: there are no recordings." }),
    deletion_errors: z.array(z.object({ person_uuid: z.string() })),
  })
  .openapi("BulkDeleteResult");
const bulkDelete = post(
  `${BASE}/bulk_delete`,
  "Delete up to 1000 persons by id/uuid or distinct id",
  z.object({
    ids: z.array(z.union([z.string(), z.number().int()])).optional(),
    distinct_ids: z.array(z.string()).optional(),
    delete_events: z.boolean().default(false),
    delete_recordings: z.boolean().default(false),
    keep_person: z.boolean().default(false),
  }),
  jsonResponse(BulkDeleteResult, "What was deleted"),
  ProjectParams,
);
const reset = post(
  `${BASE}/reset_person_distinct_id`,
  "Free a distinct id of a deleted person for reuse",
  z.object({ distinct_id: z.string({ message: "distinct_id is required" }).min(1, "distinct_id is required") }),
  jsonResponse(SuccessSchema, "Reset"),
  ProjectParams,
);

/** The POST actions on persons (static paths such as bulk_delete are mounted before `/{id}` routes). */
export const personActionRoutes = createRouter()
  .openapi(bulkDelete, async (c) => {
    const before = new Date().toISOString();
    const body = c.req.valid("json");
    if (body.ids && body.distinct_ids) throw validationError("You must provide either distinct_ids or ids, not both");
    if (!body.ids && !body.distinct_ids) throw validationError("You need to specify either distinct_ids or ids");
    if (body.distinct_ids && body.distinct_ids.length > MAX_BULK)
      throw validationError(`You can only pass ${MAX_BULK} distinct_ids in one call`);
    if (body.ids && body.ids.length > MAX_BULK) throw validationError(`You can only pass ${MAX_BULK} ids in one call`);
    const db = c.get("db");
    const projectId = c.get("project").id;
    const found = await findPersonsForBulkDelete(db, projectId, { ids: body.ids, distinctIds: body.distinct_ids });
    await deletePersons(
      db,
      analyticsStore(c.env, db),
      projectId,
      found,
      { deleteEvents: body.delete_events, keepPerson: body.keep_person, before },
      c.get("principal"),
    );
    return c.json(
      {
        persons_found: found.length,
        persons_deleted: body.keep_person ? 0 : found.length,
        events_queued_for_deletion: body.delete_events && found.length > 0,
        recordings_queued_for_deletion: false,
        deletion_errors: [],
      },
      200,
    );
  })
  .openapi(reset, async (c) => {
    const db = c.get("db");
    await resetDistinctId(db, analyticsStore(c.env, db), c.get("project").id, c.req.valid("json").distinct_id);
    return c.json({ success: true as const }, 200);
  })
  .openapi(updateProperty, async (c) => {
    const person = await requirePerson(c.get("db"), c.get("project").id, c.req.valid("param").id);
    const { key, value } = c.req.valid("json");
    const after = await setPersonProperties(
      c.env,
      c.get("db"),
      c.get("project").id,
      person,
      { [key]: value },
      c.get("principal"),
    );
    return c.json(personRecord(after), 200);
  })
  .openapi(deleteProperty, async (c) => {
    const person = await requirePerson(c.get("db"), c.get("project").id, c.req.valid("param").id);
    const after = await deletePersonProperty(
      c.env,
      c.get("db"),
      c.get("project").id,
      person,
      c.req.valid("json").$unset,
      c.get("principal"),
    );
    return c.json(personRecord(after), 200);
  })
  .openapi(split, async (c) => {
    const person = await requirePerson(c.get("db"), c.get("project").id, c.req.valid("param").id);
    const db = c.get("db");
    await splitPerson(
      db,
      analyticsStore(c.env, db),
      c.get("project").id,
      person,
      c.req.valid("json"),
      c.get("principal"),
    );
    return c.json({ success: true as const }, 200);
  });
