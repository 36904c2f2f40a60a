import { analyticsStore } from "../analytics";
import { jsonResponse } from "../lib/openapi";
import { pageOf } from "../lib/pagination";
import { createRouter, defineRoute } from "../lib/route";
import { ProjectParams } from "../projects/schema";
import { EventDefinitionList, EventDefinitionsQuery, PropertyDefinitionList, PropertyDefinitionsQuery } from "./schema";
import { eventDefinitions, PROPERTY_SAMPLE, propertyDefinitions } from "./service";

const tags = ["definitions"];

const eventDefinitionsRoute = defineRoute({
  method: "get",
  path: "/api/projects/{project_id}/event_definitions",
  tags,
  summary: "Event names seen in the project, with when each was last seen",
  auth: { kind: "personal", scopes: ["event_definition:read"] },
  request: { params: ProjectParams, query: EventDefinitionsQuery },
  responses: { 200: jsonResponse(EventDefinitionList, "Event definitions") },
});

const propertyDefinitionsRoute = defineRoute({
  method: "get",
  path: "/api/projects/{project_id}/property_definitions",
  tags,
  summary: "Event or person property keys, with their value types",
  description: `Read from the project's latest ${PROPERTY_SAMPLE.toLocaleString("en")} events (of \`event_names\` when given) or persons.`,
  auth: { kind: "personal", scopes: ["property_definition:read"] },
  request: { params: ProjectParams, query: PropertyDefinitionsQuery },
  responses: { 200: jsonResponse(PropertyDefinitionList, "Property definitions") },
});

export const definitionRoutes = createRouter()
  .openapi(eventDefinitionsRoute, async (c) => {
    const query = c.req.valid("query");
    const store = analyticsStore(c.env, c.get("db"));
    return c.json(await eventDefinitions(store, c.get("project").id, query, pageOf(query), c.req.url), 200);
  })
  .openapi(propertyDefinitionsRoute, async (c) => {
    const query = c.req.valid("query");
    const store = analyticsStore(c.env, c.get("db"));
    return c.json(
      await propertyDefinitions(store, c.get("db"), c.get("project").id, query, pageOf(query), c.req.url),
      200,
    );
  });
