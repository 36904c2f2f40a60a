import { jsonBody, jsonResponse as json } from "../lib/openapi";
import { type Page, paginatedList, paginatedSchema, PaginationQuery } from "../lib/pagination";
import { createRouter, defineRoute } from "../lib/route";
import {
  CreateProjectBody,
  ProjectParams,
  projectRecord,
  ProjectSchema,
  projectSettingsOf,
  UpdateProjectBody,
} from "./schema";
import { createProject, listProjects } from "./service";
import { changeProjectSettings } from "./update";

const list = defineRoute({
  method: "get",
  path: "/api/projects",
  tags: ["projects"],
  summary: "List the projects the key can reach",
  auth: { kind: "personal", scopes: ["project:read"] },
  request: { query: PaginationQuery },
  responses: { 200: json(paginatedSchema(ProjectSchema), "Projects") },
});

const create = defineRoute({
  method: "post",
  path: "/api/projects",
  tags: ["projects"],
  summary: "Create a project (root key only)",
  auth: { kind: "root" },
  request: { body: jsonBody(CreateProjectBody) },
  responses: { 201: json(ProjectSchema, "The new project, with its public token") },
});

const retrieve = defineRoute({
  method: "get",
  path: "/api/projects/{project_id}",
  tags: ["projects"],
  summary: "Retrieve a project",
  auth: { kind: "personal", scopes: ["project:read"] },
  request: { params: ProjectParams },
  responses: { 200: json(ProjectSchema, "The project") },
});

const update = defineRoute({
  method: "patch",
  path: "/api/projects/{project_id}",
  tags: ["projects"],
  summary: "Rename a project, change its time zone or its test-account filters",
  auth: { kind: "personal", scopes: ["project:write"] },
  request: {
    params: ProjectParams,
    body: jsonBody(UpdateProjectBody),
  },
  responses: { 200: json(ProjectSchema, "The updated project") },
});

export const projectRoutes = createRouter()
  .openapi(list, async (c) => {
    const load = (page: Page) => listProjects(c.get("db"), c.get("principal"), page);
    return c.json(await paginatedList(c.req.url, c.req.valid("query"), load, projectRecord), 200);
  })
  .openapi(create, async (c) => {
    const body = c.req.valid("json");
    const project = await createProject(c.get("db"), { ...projectSettingsOf(body), name: body.name });
    return c.json(projectRecord(project), 201);
  })
  .openapi(retrieve, (c) => c.json(projectRecord(c.get("project")), 200))
  .openapi(update, async (c) => {
    const project = await changeProjectSettings(
      c.get("db"),
      c.var.refreshFlagDefinitions,
      c.get("project"),
      projectSettingsOf(c.req.valid("json")),
    );
    return c.json(projectRecord(project), 200);
  });
