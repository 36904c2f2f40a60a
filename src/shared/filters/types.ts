import { validationError } from "../../lib/errors";
import { isObject } from "../../lib/json";
import { excerpt } from "../../lib/text";

export const OPERATORS = [
  "exact",
  "is_not",
  "icontains",
  "not_icontains",
  "regex",
  "not_regex",
  "gt",
  "gte",
  "lt",
  "lte",
  "is_set",
  "is_not_set",
  "is_date_exact",
  "is_date_before",
  "is_date_after",
  "in",
  "not_in",
] as const;
export type Operator = (typeof OPERATORS)[number];

/** What a filter reads: a person property, an event property, or membership of a cohort. */
export type FilterKind = "person" | "event" | "cohort";

export interface PropertyFilter {
  kind: FilterKind;
  key: string;
  operator: Operator;
  value: unknown;
  /** Cohort filters only: not a member. */
  negation: boolean;
}

export interface FilterGroup {
  type: "AND" | "OR";
  values: (PropertyFilter | FilterGroup)[];
}

export const isGroup = (node: PropertyFilter | FilterGroup): node is FilterGroup => "values" in node;

const MAX_DEPTH = 6;
const MAX_FILTERS = 50;
/** PostHog's property definitions hold names of at most 400 characters. */
const MAX_KEY_LENGTH = 400;
/** One value of a filter (a string, or the JSON text of anything else). */
const MAX_VALUE_LENGTH = 10_000;
/** PostHog's limit on a list value (feature flags' "Property group expressions ... 1000 values"). */
const MAX_LIST_VALUES = 1000;

/**
 * The size limits every property filter obeys, wherever it is used (flags, cohorts, persons and
 * analysis filters, test account filters), so a filter stored anywhere can be evaluated anywhere.
 * Oversized keys and values are refused as a 400 naming `attr`.
 */
export function checkFilterSize(key: string, value: unknown, attr: string) {
  const quoted = excerpt(key);
  if (key.length > MAX_KEY_LENGTH)
    throw validationError(`Property filter keys are at most ${MAX_KEY_LENGTH} characters ("${quoted}").`, attr);
  const values = Array.isArray(value) ? value : [value];
  if (values.length > MAX_LIST_VALUES)
    throw validationError(
      `Property group expressions of type ${quoted} cannot contain more than ${MAX_LIST_VALUES} values.`,
      attr,
    );
  for (const v of values) {
    const length = typeof v === "string" ? v.length : (JSON.stringify(v) ?? "").length;
    if (length > MAX_VALUE_LENGTH)
      throw validationError(
        `The value of the property filter on "${quoted}" is longer than ${MAX_VALUE_LENGTH} characters.`,
        attr,
      );
  }
}

/**
 * Validates PostHog's property filter JSON: an array of filters (ANDed) or a group
 * `{type: "AND"|"OR", values: [...]}` of filters and groups. Cohort filters are
 * `{type: "cohort", key: "id", value: <cohort id>}`. `defaultKind` is the kind of a filter without `type`.
 * Throws a 400 naming `attr` on anything it cannot evaluate.
 */
export function parseFilterGroup(
  input: unknown,
  attr: string,
  defaultKind: "person" | "event" = "person",
): FilterGroup {
  let count = 0;
  const node = (raw: unknown, depth: number): PropertyFilter | FilterGroup => {
    if (depth > MAX_DEPTH) throw validationError("Property filters are nested too deeply.", attr);
    if (Array.isArray(raw)) return { type: "AND", values: raw.map((r) => node(r, depth + 1)) };
    if (!isObject(raw)) throw validationError("Each property filter must be an object.", attr);
    if (Array.isArray(raw.values) && (raw.type === "AND" || raw.type === "OR" || raw.type === undefined)) {
      return { type: raw.type === "OR" ? "OR" : "AND", values: raw.values.map((r) => node(r, depth + 1)) };
    }
    if (++count > MAX_FILTERS) throw validationError(`At most ${MAX_FILTERS} property filters are allowed.`, attr);
    return filter(raw, attr, defaultKind);
  };
  const root = node(input, 0);
  return isGroup(root) ? root : { type: "AND", values: [root] };
}

function filter(raw: Record<string, unknown>, attr: string, defaultKind: "person" | "event"): PropertyFilter {
  const type = raw.type ?? defaultKind;
  let kind: FilterKind;
  if (type === "person" || type === "event") kind = type;
  else if (type === "cohort" || type === "precalculated-cohort" || type === "static-cohort") kind = "cohort";
  else throw validationError(`Property filters of type "${String(type)}" are not supported.`, attr);
  const operator = (raw.operator ?? (kind === "cohort" ? "in" : "exact")) as Operator;
  if (!OPERATORS.includes(operator))
    throw validationError(`Unknown property filter operator "${String(raw.operator)}".`, attr);
  if (kind === "cohort") {
    const id = Number(raw.value);
    if (!Number.isSafeInteger(id)) throw validationError("A cohort filter's value must be a cohort id.", attr);
    if (operator !== "in" && operator !== "not_in" && operator !== "exact")
      throw validationError("Cohort filters take the operator in or not_in.", attr);
    return { kind, key: "id", operator, value: id, negation: raw.negation === true || operator === "not_in" };
  }
  if (typeof raw.key !== "string" || !raw.key.length)
    throw validationError("Each property filter needs a `key`.", attr);
  checkFilterSize(raw.key, raw.value, attr);
  if (operator !== "is_set" && operator !== "is_not_set" && raw.value === undefined) {
    throw validationError(`The property filter on "${raw.key}" needs a \`value\`.`, attr);
  }
  return { kind, key: raw.key, operator, value: raw.value, negation: false };
}

/** Cohort ids a filter group refers to (directly). */
export function cohortIdsIn(group: FilterGroup): number[] {
  const ids: number[] = [];
  const walk = (node: PropertyFilter | FilterGroup) => {
    if (isGroup(node)) node.values.forEach(walk);
    else if (node.kind === "cohort") ids.push(node.value as number);
  };
  walk(group);
  return ids;
}

/**
 * A `properties` value as it arrives: JSON text (a query parameter) or already parsed (a JSON body).
 * Unset or empty is `undefined`; text that is not JSON is PostHog's "Properties are unparsable!".
 */
export function parseFiltersJson(raw: unknown, attr: string | null): unknown {
  if (raw === undefined || raw === null || raw === "") return undefined;
  if (typeof raw !== "string") return raw;
  try {
    return JSON.parse(raw);
  } catch {
    throw validationError("Properties are unparsable!", attr);
  }
}
