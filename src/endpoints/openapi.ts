import { z } from "@hono/zod-openapi";
import { MAX_LIMIT } from "../hogql/compile";
import { ErrorSchema } from "../lib/route";
import type { InsightQuery } from "../insights/insight";
import { breakdownVariable } from "./insight-materialization";
import { InsightRunResponseSchema, RunResponseSchema } from "./response-schemas";
import { isHogQL, type SavedQuery, type VariableDef } from "./saved-query-schema";
import type { EndpointRow, VersionRow } from "./service";

/**
 * An endpoint version's own OpenAPI 3.0.3 document (PostHog's per-endpoint generator): the run
 * path, a request schema with the version's typed variables, the response. Its schemas are zod
 * schemas converted by `z.toJSONSchema`; the response and error are the ones the API serves.
 */
export function endpointOpenApi(origin: string, endpoint: EndpointRow, version: VersionRow) {
  const query = version.query as SavedQuery;
  const hogql = isHogQL(query);
  const variables = hogql ? Object.values(query.variables ?? {}) : [];
  const needsVariables = variables.some(isRequired);
  const variablesSchema = hogql
    ? variables.length
      ? variablesObject(variables)
      : null
    : insightVariables(query, version.isMaterialized);
  const request = runRequestSchema(endpoint, variablesSchema, needsVariables, hogql);
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
        post: runOperation(endpoint, version, needsVariables),
      },
    },
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: componentSchemas({
        EndpointRunRequest: request,
        ...(variablesSchema ? { Variables: variablesSchema } : {}),
        EndpointRunResponse: hogql ? RunResponseSchema : InsightRunResponseSchema,
        Error: ErrorSchema,
      }),
    },
  };
}

/** A variable without a stored value must be sent by every run. */
const isRequired = (def: VariableDef) => def.value === undefined || def.value === null;

type VariableType = NonNullable<VariableDef["type"]>;

/** PostHog's InsightVariable type or, failing that, the type of the stored value. */
function variableType(def: VariableDef): VariableType {
  if (def.type) return def.type;
  if (Array.isArray(def.value)) return "List";
  if (typeof def.value === "number") return "Number";
  if (typeof def.value === "boolean") return "Boolean";
  return "String";
}

const VALUE_SCHEMAS: Record<VariableType, () => z.ZodType> = {
  String: () => z.string(),
  Number: () => z.number(),
  Boolean: () => z.boolean(),
  Date: () => z.iso.date(),
  List: () => z.array(z.string()),
};

/** A variable's value: its type, its code name, its stored value as the example; optional when it has one. */
function variableSchema(def: VariableDef) {
  const example = isRequired(def) ? {} : { example: def.value };
  const schema = VALUE_SCHEMAS[variableType(def)]().meta({ description: `Variable: ${def.code_name}`, ...example });
  return isRequired(def) ? schema : schema.optional();
}

/** The version's variables, by code name; no others are accepted. */
function variablesObject(variables: VariableDef[]) {
  return z
    .strictObject(Object.fromEntries(variables.map((v) => [v.code_name, variableSchema(v)])))
    .describe("Query variables, by code name.");
}

/**
 * An insight's magic variables (products/endpoints openapi.py): its one breakdown property's value,
 * and `date_from`/`date_to` unless materialized (the stored result is for the saved range).
 */
function insightVariables(query: InsightQuery, materialized: boolean) {
  const breakdown = breakdownVariable(query);
  const shape: Record<string, z.ZodType> = {};
  if (breakdown)
    shape[breakdown.key] = z
      .string()
      .optional()
      .meta({ description: `Only this value of the breakdown property ${breakdown.key}.`, example: "Chrome" });
  if (!materialized) {
    shape.date_from = z.string().optional().meta({ description: "Start of the range.", example: "2024-01-01" });
    shape.date_to = z.string().optional().meta({ description: "End of the range.", example: "2024-01-31" });
  }
  return Object.keys(shape).length ? z.strictObject(shape).describe("The insight's variables.") : null;
}

/**
 * The run's body (its `version` bounded by the endpoint's versions); `variables` is required when one
 * is. `limit` is HogQL's; `filters_override` an insight's.
 */
function runRequestSchema(endpoint: EndpointRow, variables: z.ZodType | null, needsVariables: boolean, hogql: boolean) {
  return z.strictObject({
    client_query_id: z.string().optional().describe("Tags the query."),
    refresh: z
      .enum(["cache", "force", "direct"])
      .default("cache")
      .describe("cache: use a fresh cached result; force: recompute; direct: bypass the materialization."),
    version: z
      .number()
      .int()
      .min(1)
      .max(endpoint.currentVersion)
      .optional()
      .describe(`Version to run (1-${endpoint.currentVersion}); default: the latest.`),
    ...(hogql
      ? { limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe("At most this many rows.") }
      : {
          filters_override: z
            .object({
              date_from: z.string().optional(),
              date_to: z.string().optional(),
              properties: z.array(z.record(z.string(), z.unknown())).optional(),
              breakdown_filter: z.record(z.string(), z.unknown()).optional(),
            })
            .optional()
            .describe("Deprecated by PostHog in favour of variables: dates, properties (ANDed) and a breakdown."),
        }),
    debug: z
      .boolean()
      .default(false)
      .describe(hogql ? "Include the compiled SQL and timings." : "Include timings."),
    ...(variables ? { variables: needsVariables ? variables : variables.optional() } : {}),
  });
}

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

/** The one operation: POST the run request, get the rows. */
function runOperation(endpoint: EndpointRow, version: VersionRow, needsVariables: boolean) {
  return {
    operationId: `run_${endpoint.name.replaceAll("-", "_")}`,
    summary: `Execute ${endpoint.name}`,
    description: version.description || `Execute the ${endpoint.name} endpoint`,
    security: [{ PersonalAPIKey: [] }],
    requestBody: {
      required: needsVariables,
      content: { "application/json": { schema: { $ref: "#/components/schemas/EndpointRunRequest" } } },
    },
    responses: {
      "200": {
        description: "Query results",
        content: { "application/json": { schema: { $ref: "#/components/schemas/EndpointRunResponse" } } },
      },
      "400": errorResponse("Invalid request"),
      "401": errorResponse("Authentication required"),
      "404": errorResponse("Endpoint not found"),
    },
  };
}

const SECURITY_SCHEMES = {
  PersonalAPIKey: {
    type: "http",
    scheme: "bearer",
    description: "Personal API key (phx_...) with the endpoint:read scope.",
  },
};

/**
 * The named schemas as OpenAPI 3.0 schema objects, referring to each other through
 * `#/components/schemas/<name>`. Converted as input, so defaults are optional and only strict
 * objects forbid other keys.
 */
function componentSchemas(named: Record<string, z.ZodType>) {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: "openapi-3.0",
    io: "input",
    uri: (id) => `#/components/schemas/${id}`,
    override: dropImpliedConstraints,
  });
  // `$id` names a JSON Schema resource; OpenAPI 3.0 schema objects do not allow it.
  return Object.fromEntries(Object.entries(schemas).map(([id, { $id: _, ...schema }]) => [id, schema]));
}

/**
 * zod writes the safe-integer range on every integer and a regular expression beside every date
 * and date-time format: both restate the type or format, and only make the document harder to read.
 */
function dropImpliedConstraints({ jsonSchema }: { jsonSchema: z.core.JSONSchema.BaseSchema }) {
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
  if (jsonSchema.format === "date" || jsonSchema.format === "date-time") delete jsonSchema.pattern;
}
