import type { AnalyticsEngine } from "../analytics/queries";
import { compileClickHousePlan } from "../hogql/clickhouse/compile";
import { type VariableType, variableTypeOf } from "../hogql/clickhouse/variables";
import { compileHogQL, type CompiledQuery } from "../hogql/compile";
import { HogQLError } from "../hogql/errors";
import { hogqlParser } from "../hogql/parser";
import { validationError } from "../lib/errors";
import { parseInsightQuery } from "../insights/parse";
import { type HogQLQuery, type SavedQuery, VARIABLE_TYPES, type VariableDef } from "./saved-query-schema";

/** Parsing costs CPU in proportion to the text (about 25 ms for a typical query): keep texts bounded. */
const MAX_QUERY_LENGTH = 20_000;
const CODE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const INSIGHT_KINDS = [
  "TrendsQuery",
  "FunnelsQuery",
  "RetentionQuery",
  "PathsQuery",
  "StickinessQuery",
  "LifecycleQuery",
];

/**
 * Validates a saved query: HogQL, or an insight (src/insights/parse.ts). Errors carry `attr: "query"`
 * (an insight's, the field's path under it).
 */
export function normalizeQuery(raw: unknown): SavedQuery {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw validationError("Must specify query", "query");
  const query = raw as Record<string, unknown>;
  if (INSIGHT_KINDS.includes(String(query.kind))) return parseInsightQuery(query, "query");
  return normalizeHogQL(query);
}

/** Validates a HogQL query (its variables included). */
export function normalizeHogQL(query: Record<string, unknown>): HogQLQuery {
  if (query.kind !== "HogQLQuery") {
    const kind = typeof query.kind === "string" ? query.kind : "missing";
    throw validationError(
      `Query kind '${kind}' is not supported (unknown query kind); use {"kind": "HogQLQuery", "query": "SELECT ..."} or an insight query (TrendsQuery, FunnelsQuery, LifecycleQuery, StickinessQuery, RetentionQuery).`,
      "query",
    );
  }
  if (typeof query.query !== "string" || !query.query.trim())
    throw validationError("Query is empty or invalid.", "query");
  if (query.query.length > MAX_QUERY_LENGTH)
    throw validationError(`Query is longer than ${MAX_QUERY_LENGTH} characters.`, "query");
  const out: HogQLQuery = { ...query, kind: "HogQLQuery", query: query.query };
  for (const [key, value] of Object.entries(out)) if (value === null || value === undefined) delete out[key];
  if (out.variables !== undefined) out.variables = normalizeVariables(out.variables);
  return out;
}

function normalizeVariables(raw: unknown): Record<string, VariableDef> {
  if (!raw || typeof raw !== "object" || Array.isArray(raw))
    throw validationError("query.variables must be an object keyed by variable id.", "query");
  const seen = new Set<string>();
  const out: Record<string, VariableDef> = {};
  for (const [id, def] of Object.entries(raw as Record<string, unknown>)) {
    const d = (def ?? {}) as Record<string, unknown>;
    const code = typeof d.code_name === "string" ? d.code_name : id;
    if (!CODE_NAME.test(code)) throw validationError(`Invalid variable code_name: ${code}`, "query");
    if (seen.has(code)) throw validationError(`Variable ${code} is defined twice`, "query");
    seen.add(code);
    if (d.type !== undefined && !(VARIABLE_TYPES as readonly string[]).includes(String(d.type)))
      throw validationError(
        `Variable ${code} has an unknown type ${String(d.type)}; use one of ${VARIABLE_TYPES.join(", ")}`,
        "query",
      );
    if (d.value !== undefined && !isBindable(d.value) && !isList(d.value)) {
      throw validationError(`Variable ${code} must have a string, number, boolean, null or list value`, "query");
    }
    out[id] = { ...(d as object), code_name: code } as VariableDef;
  }
  return out;
}

export const isBindable = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);
/** A List variable's value (compared with IN): scalars only. */
export const isList = (v: unknown): v is unknown[] => Array.isArray(v) && v.every((x) => x !== null && isBindable(x));

/** code_name → definition. */
export const variablesByCode = (query: HogQLQuery) =>
  new Map(Object.values(query.variables ?? {}).map((v) => [v.code_name, v]));

/**
 * Compiles a saved query for the deployment's engine (done once, when a version is saved, and again
 * when the compiler or the engine changed): refusals are a 400 on `query`.
 */
export async function compileQuery(query: HogQLQuery, engine: AnalyticsEngine): Promise<CompiledQuery> {
  let compiled: CompiledQuery;
  try {
    compiled =
      engine === "clickhouse"
        ? compileClickHousePlan(query.query, { parser: await hogqlParser(), variableTypes: variableTypes(query) })
        : await compileHogQL(query.query);
  } catch (error) {
    if (error instanceof HogQLError) throw validationError(error.message, "query");
    throw error;
  }
  const defined = variablesByCode(query);
  const missing = compiled.variables.filter((v) => !defined.has(v));
  if (missing.length) {
    throw validationError(
      `Query references undefined variable(s): ${missing.join(", ")}. Define them in query.variables.`,
      "query",
    );
  }
  if (compiled.variables.length > 90) throw validationError("A query may use at most 90 variables.", "query");
  return compiled;
}

/** ClickHouse types each variable's parameter when compiling: the definition's type, else its stored value's. */
function variableTypes(query: HogQLQuery): Record<string, VariableType> {
  const types: Record<string, VariableType> = {};
  for (const def of variablesByCode(query).values()) types[def.code_name] = def.type ?? variableTypeOf(def.value);
  return types;
}

/** Deep equality after sorting keys (a new version is made only when this differs). */
export function sameQuery(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== null && v !== undefined)
      .sort(([x], [y]) => (x < y ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
