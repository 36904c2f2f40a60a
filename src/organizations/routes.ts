import { notFound } from "../lib/errors";
import { jsonResponse as json } from "../lib/openapi";
import { type Page, paginated, paginatedList, paginatedSchema, pageOf, PaginationQuery } from "../lib/pagination";
import { createRouter, defineRoute } from "../lib/route";
import { projectRecord, ProjectSchema } from "../projects/schema";
import { listProjects } from "../projects/service";
import { isOurOrganization, OrganizationParams, organizationRecord, OrganizationSchema } from "./schema";

const tags = ["organizations"];

const list = defineRoute({
  method: "get",
  path: "/api/organizations",
  tags,
  summary: "The organizations the key belongs to: the deployment's one implicit organization",
  auth: { kind: "personal", scopes: [] },
  request: { query: PaginationQuery },
  responses: { 200: json(paginatedSchema(OrganizationSchema), "One organization") },
});

const retrieve = defineRoute({
  method: "get",
  path: "/api/organizations/{organization_id}",
  tags,
  summary: "The organization (`@current` or its id)",
  auth: { kind: "personal", scopes: [] },
  request: { params: OrganizationParams },
  responses: { 200: json(OrganizationSchema, "The organization") },
});

const projects = defineRoute({
  method: "get",
  path: "/api/organizations/{organization_id}/projects",
  tags,
  summary: "The organization's projects that the key can reach",
  auth: { kind: "personal", scopes: ["project:read"] },
  request: { params: OrganizationParams, query: PaginationQuery },
  responses: { 200: json(paginatedSchema(ProjectSchema), "Projects") },
});

function ourOrganization(id: string) {
  if (!isOurOrganization(id)) throw notFound("Organization not found.");
}

export const organizationRoutes = createRouter()
  .openapi(list, (c) => {
    const page = pageOf(c.req.valid("query"));
    const rows = page.offset === 0 ? [organizationRecord()] : [];
    return c.json(paginated(c.req.url, page, 1, rows), 200);
  })
  .openapi(retrieve, (c) => {
    ourOrganization(c.req.valid("param").organization_id);
    return c.json(organizationRecord(), 200);
  })
  .openapi(projects, async (c) => {
    ourOrganization(c.req.valid("param").organization_id);
    const load = (page: Page) => listProjects(c.get("db"), c.get("principal"), page);
    return c.json(await paginatedList(c.req.url, c.req.valid("query"), load, projectRecord), 200);
  });
