import { MAX_LIMIT } from "../hogql/compile";
import type { HogQLQuery, VariableDef } from "./saved-query-schema";
import type { EndpointRow, VersionRow } from "./service";

/** JSON Schema of a variable, from PostHog's InsightVariable type or, failing that, its stored value. */
function variableSchema(def: VariableDef): Record<string, unknown> {
  const type =
    def.type ??
    (Array.isArray(def.value)
      ? "List"
      : typeof def.value === "number"
        ? "Number"
        : typeof def.value === "boolean"
          ? "Boolean"
          : "String");
  const schema: Record<string, unknown> =
    type === "Number"
      ? { type: "number" }
      : type === "Boolean"
        ? { type: "boolean" }
        : type === "Date"
          ? { type: "string", format: "date" }
          : type === "List"
            ? { type: "array", items: { type: "string" } }
            : { type: "string" };
  schema.description = `Variable: ${def.code_name}`;
  if (def.value !== undefined && def.value !== null) schema.example = def.value;
  return schema;
}

/**
 * An OpenAPI 3.0.3 document describing how to run one endpoint version (PostHog's per-endpoint
 * generator): the run path, a request schema with the version's typed variables, the response.
 */
export function endpointOpenApi(origin: string, endpoint: EndpointRow, version: VersionRow) {
  const query = version.query as HogQLQuery;
  const variables = Object.values(query.variables ?? {});
  const required = variables.filter((v) => v.value === undefined || v.value === null).map((v) => v.code_name);
  const description = version.description || `Execute the ${endpoint.name} endpoint`;
  const runRequest: Record<string, unknown> = {
    type: "object",
    properties: {
      client_query_id: { type: "string", description: "Tags the query." },
      refresh: {
        type: "string",
        enum: ["cache", "force", "direct"],
        default: "cache",
        description: "cache: use a fresh cached result; force: recompute; direct: bypass the materialization.",
      },
      version: {
        type: "integer",
        minimum: 1,
        maximum: endpoint.currentVersion,
        description: `Version to run (1-${endpoint.currentVersion}); default: the latest.`,
      },
      limit: { type: "integer", minimum: 1, maximum: MAX_LIMIT, description: "At most this many rows." },
      debug: { type: "boolean", default: false, description: "Include the compiled SQL and timings." },
      ...(variables.length ? { variables: { $ref: "#/components/schemas/Variables" } } : {}),
    },
    additionalProperties: false,
  };
  if (required.length) runRequest.required = ["variables"];
  const schemas: Record<string, unknown> = { EndpointRunRequest: runRequest };
  if (variables.length) {
    schemas.Variables = {
      type: "object",
      description: "Query variables, by code name.",
      additionalProperties: false,
      properties: Object.fromEntries(variables.map((v) => [v.code_name, variableSchema(v)])),
      ...(required.length ? { required } : {}),
    };
  }
  schemas.EndpointRunResponse = {
    type: "object",
    properties: {
      results: {
        type: "array",
        items: { type: "array", items: {} },
        description: "Rows, each an array in column order.",
      },
      columns: { type: "array", items: { type: "string" } },
      types: { type: "array", items: { type: "array", items: { type: "string" } } },
      hasMore: { type: "boolean" },
      limit: { type: "integer" },
      offset: { type: "integer" },
      is_cached: { type: "boolean" },
      last_refresh: { type: "string", format: "date-time" },
      timezone: { type: "string" },
      endpoint_version: { type: "integer" },
    },
    required: ["results"],
  };
  const error = {
    description: "",
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  };
  schemas.Error = {
    type: "object",
    properties: {
      type: { type: "string" },
      code: { type: "string" },
      detail: { type: "string" },
      attr: { type: "string", nullable: true },
    },
  };
  return {
    openapi: "3.0.3",
    info: {
      title: endpoint.name,
      description: version.description || `PostHog Endpoint: ${endpoint.name}`,
      version: String(version.version),
    },
    servers: [{ url: origin }],
    paths: {
      [`/api/projects/${endpoint.projectId}/endpoints/${endpoint.name}/run`]: {
        post: {
          operationId: `run_${endpoint.name.replaceAll("-", "_")}`,
          summary: `Execute ${endpoint.name}`,
          description,
          security: [{ PersonalAPIKey: [] }],
          requestBody: {
            required: required.length > 0,
            content: { "application/json": { schema: { $ref: "#/components/schemas/EndpointRunRequest" } } },
          },
          responses: {
            "200": {
              description: "Query results",
              content: { "application/json": { schema: { $ref: "#/components/schemas/EndpointRunResponse" } } },
            },
            "400": { ...error, description: "Invalid request" },
            "401": { ...error, description: "Authentication required" },
            "404": { ...error, description: "Endpoint not found" },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        PersonalAPIKey: {
          type: "http",
          scheme: "bearer",
          description: "Personal API key (phx_...) with the endpoint:read scope.",
        },
      },
      schemas,
    },
  };
}
