import { validationError } from "../../lib/errors";
import type { Params } from "./sql";

/**
 * THE ONE PLACE where the analysis views turn PostHog property filters into SQL.
 *
 * This is a thin adapter, on purpose: the persons area owns the project's property-filter matcher
 * (src/persons/filters/, taking the JSON column expression as a parameter). Until that module is on
 * main, this adapter supports only the equality operators below and refuses the rest with a 400.
 * The swap is a change of this file only: parse with the matcher's `parseFilterGroup(tree, attr, "event")`,
 * compile with `compileFilterGroup(group, { eventProperties: sql.raw(columns.event), personProperties:
 * sql.raw(columns.person), personId: sql.raw(columns.personId) }, cohortSql)` and inline the fragment
 * with `inlineDrizzle` (sql-bridge.ts), which renumbers its parameters into the statement's.
 */

/** SQL expressions the filters read: the event's properties (JSON text), its person's, and the person id. */
export interface FilterColumns {
  event: string;
  person: string;
  personId: string;
}

/** Filters over rows of `events` aliased `alias` (person properties are the person's current ones). */
export const eventColumns = (alias: string): FilterColumns => ({
  event: `${alias}.properties`,
  person: `(SELECT pp.properties FROM persons pp WHERE pp.id = ${alias}.person_id)`,
  personId: `${alias}.person_id`,
});

/** Filters over a person id expression only (no event). */
export const personColumns = (personId: string): FilterColumns => ({
  event: "'{}'",
  person: `(SELECT pp.properties FROM persons pp WHERE pp.id = ${personId})`,
  personId,
});

interface PropertyFilter {
  key: string;
  value?: unknown;
  operator?: string;
  type?: string;
}

const SUPPORTED = new Set(["exact", "is_not", "is_set", "is_not_set"]);

/** Parses a `properties` value (JSON text or already parsed) into a filter tree; `undefined` means none. */
export function parseProperties(raw: unknown, attr: string): unknown {
  if (raw === undefined || raw === null || raw === "") return undefined;
  if (typeof raw !== "string") return raw;
  try {
    return JSON.parse(raw);
  } catch {
    throw validationError("Properties are unparsable!", attr);
  }
}

/** SQL boolean for a filter list (ANDed) or a `{type: AND|OR, values}` group; `1` when empty. */
export function propertiesSql(tree: unknown, columns: FilterColumns, params: Params, attr: string): string {
  if (tree === undefined) return "1";
  if (Array.isArray(tree)) return joinAll(tree.map((f) => propertiesSql(f, columns, params, attr)), "AND");
  if (tree && typeof tree === "object") {
    const node = tree as { type?: string; values?: unknown[] };
    if (Array.isArray(node.values) && (node.type === "AND" || node.type === "OR")) {
      return joinAll(node.values.map((f) => propertiesSql(f, columns, params, attr)), node.type);
    }
    return filterExpr(tree as PropertyFilter, columns, params, attr);
  }
  throw validationError("Properties are unparsable!", attr);
}

function joinAll(parts: string[], op: "AND" | "OR") {
  if (!parts.length) return "1";
  return `(${parts.join(` ${op} `)})`;
}

/** The text form PostHog compares on: booleans as `true`/`false`, numbers and strings as text. */
export function jsonText(column: string, path: string) {
  return `(CASE json_type(${column}, ${path}) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' THEN NULL ELSE CAST(json_extract(${column}, ${path}) AS TEXT) END)`;
}

/** A JSON path for one top-level key, as a bound parameter. */
export function keyPath(key: string, params: Params, attr: string) {
  if (key.includes('"')) throw validationError(`Property keys containing '"' are not supported: ${key}`, attr);
  return params.bind(`$."${key}"`);
}

function filterExpr(filter: PropertyFilter, columns: FilterColumns, params: Params, attr: string): string {
  if (typeof filter.key !== "string" || !filter.key) throw validationError("Each property filter needs a key.", attr);
  const type = filter.type ?? "event";
  if (type !== "event" && type !== "person") {
    throw validationError(`Property filters of type "${type}" are not supported here (event and person only).`, attr);
  }
  const operator = filter.operator ?? "exact";
  if (!SUPPORTED.has(operator)) {
    throw validationError(`The property operator "${operator}" is not supported here yet (exact, is_not, is_set, is_not_set).`, attr);
  }
  const column = type === "person" ? columns.person : columns.event;
  const path = keyPath(filter.key, params, attr);
  const value = jsonText(column, path);
  if (operator === "is_set") return `(${value} IS NOT NULL)`;
  if (operator === "is_not_set") return `(${value} IS NULL)`;
  const wanted = (Array.isArray(filter.value) ? filter.value : [filter.value]).map((v) => (v === null || v === undefined ? "" : String(v)));
  const list = wanted.map((v) => params.bind(v)).join(", ");
  return operator === "exact" ? `(${value} IN (${list}))` : `(${value} IS NULL OR ${value} NOT IN (${list}))`;
}
