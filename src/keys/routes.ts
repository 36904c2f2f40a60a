import { notFound, validationError } from "../lib/errors";
import { jsonBody, jsonResponse } from "../lib/openapi";
import { type Page, paginatedList, paginatedSchema, PaginationQuery } from "../lib/pagination";
import { createRouter, defineRoute } from "../lib/route";
import { CreateKeyBody, CreatedKeySchema, currentKeyRecord, KeyIdParams, keyRecord, KeySchema } from "./schema";
import { missingProjectIds } from "../projects/service";
import { createKey, deleteKey, getKey, listKeys } from "./service";

const tags = ["personal_api_keys"];

const list = defineRoute({
  method: "get",
  path: "/api/personal_api_keys",
  tags,
  summary: "List personal API keys (root key only)",
  auth: { kind: "root" },
  request: { query: PaginationQuery },
  responses: { 200: jsonResponse(paginatedSchema(KeySchema), "Keys, newest first") },
});

const create = defineRoute({
  method: "post",
  path: "/api/personal_api_keys",
  tags,
  summary: "Create a personal API key (root key only); the plaintext is returned once",
  auth: { kind: "root" },
  request: { body: jsonBody(CreateKeyBody) },
  responses: { 201: jsonResponse(CreatedKeySchema, "The key, with its plaintext value") },
});

const current = defineRoute({
  method: "get",
  path: "/api/personal_api_keys/@current",
  tags,
  summary: "The calling key's own scopes and projects",
  auth: { kind: "personal", scopes: [] },
  responses: { 200: jsonResponse(KeySchema, "The calling key") },
});

const remove = defineRoute({
  method: "delete",
  path: "/api/personal_api_keys/{id}",
  tags,
  summary: "Revoke a personal API key (root key only)",
  auth: { kind: "root" },
  request: { params: KeyIdParams },
  responses: { 204: { description: "Revoked" } },
});

export const keyRoutes = createRouter()
  .openapi(list, async (c) => {
    const load = (page: Page) => listKeys(c.get("db"), page);
    return c.json(await paginatedList(c.req.url, c.req.valid("query"), load, keyRecord), 200);
  })
  .openapi(create, async (c) => {
    const body = c.req.valid("json");
    const db = c.get("db");
    // PostHog renders an unscoped key with `scoped_teams: []`, so an empty list means every project.
    const scopedProjects = body.scoped_teams?.length ? [...new Set(body.scoped_teams)] : null;
    const unknown = scopedProjects ? await missingProjectIds(db, scopedProjects) : [];
    if (unknown.length) throw validationError(`Unknown project id(s): ${unknown.join(", ")}.`, "scoped_teams");
    const { key, plaintext } = await createKey(db, { label: body.label, scopes: body.scopes, scopedProjects });
    return c.json({ ...keyRecord(key), value: plaintext }, 201);
  })
  .openapi(current, async (c) => {
    const principal = c.get("principal");
    const key = principal.kind === "personal_api_key" ? await getKey(c.get("db"), principal.keyId) : undefined;
    return c.json(currentKeyRecord(principal, key), 200);
  })
  .openapi(remove, async (c) => {
    if (!(await deleteKey(c.get("db"), c.req.valid("param").id))) throw notFound();
    return c.body(null, 204);
  });
