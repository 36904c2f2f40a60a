import { parseFilterDate, parsePersonDate } from "./dates";
import { compareVersions, parseVersion, versionRange } from "./semver";

/** One property filter as stored in `filters.groups[].properties` and in cohort definitions. */
export interface PropertyFilter {
  key: string;
  value?: unknown;
  operator?: string | null;
  type?: string;
  group_type_index?: number | null;
  negation?: boolean | null;
  dependency_chain?: string[];
}

/** Operators that match a missing property (the server's `partial_props=false` column, flag-eval.md §4.1). */
const MATCH_WHEN_MISSING = new Set([
  "is_not",
  "not_icontains",
  "not_regex",
  "not_starts_with",
  "not_ends_with",
  "not_between",
  "is_not_set",
  "not_icontains_multi",
]);

/** Text of a JSON value as the server stringifies it: strings raw, everything else as JSON. */
export function stringify(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "null";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));

const FLOAT = /^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;

/** A number as the server reads one: a JSON number, or a string Rust's `f64` parser accepts. */
function toNumber(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value !== "string" || !FLOAT.test(value)) return undefined;
  const lower = value.toLowerCase().replace(/^\+/, "");
  if (lower.endsWith("nan")) return NaN;
  if (lower.endsWith("inf") || lower.endsWith("infinity")) return lower.startsWith("-") ? -Infinity : Infinity;
  return Number(lower);
}

const isBoolish = (v: unknown) => typeof v === "boolean" || (typeof v === "string" && /^(true|false)$/i.test(v));
const truthy = (v: unknown) => v === true || (typeof v === "string" && v.toLowerCase() === "true");

function exactMatch(filterValue: unknown, actual: unknown): boolean {
  const candidates = Array.isArray(filterValue) ? filterValue : [filterValue];
  // The server reduces both sides to truthiness when the filter is boolean-like.
  if (candidates.length && candidates.every(isBoolish)) {
    return candidates.some((c) => truthy(c) === truthy(actual));
  }
  const text = stringify(actual).toLowerCase();
  return candidates.some((c) => stringify(c).toLowerCase() === text);
}

const regexCache = new Map<string, RegExp | null>();
function compile(pattern: string): RegExp | null {
  let re = regexCache.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern);
    } catch {
      re = null;
    }
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(pattern, re);
  }
  return re;
}

function compareNumbers(operator: string, filterValue: unknown, actual: unknown): boolean {
  const a = toNumber(actual),
    f = toNumber(filterValue);
  if (a === undefined || f === undefined) return false;
  if (operator === "gt") return a > f;
  if (operator === "gte") return a >= f;
  if (operator === "lt") return a < f;
  return a <= f;
}

function compareDates(operator: string, filterValue: unknown, actual: unknown, now: Date, zone?: string): boolean {
  const f = parseFilterDate(filterValue, now, zone),
    a = parsePersonDate(actual, zone);
  if (!f || !a) return false;
  if (operator === "is_date_before") return a.getTime() < f.getTime();
  if (operator === "is_date_after") return a.getTime() > f.getTime();
  return a.getTime() === f.getTime();
}

function compareSemver(operator: string, filterValue: unknown, actual: unknown): boolean {
  const version = parseVersion(actual);
  if (!version) return false;
  if (operator === "semver_tilde" || operator === "semver_caret" || operator === "semver_wildcard") {
    const range = versionRange(operator, filterValue);
    return !!range && compareVersions(version, range.low) >= 0 && compareVersions(version, range.high) < 0;
  }
  const target = parseVersion(filterValue);
  if (!target) return false;
  const c = compareVersions(version, target);
  switch (operator) {
    case "semver_eq":
      return c === 0;
    case "semver_neq":
      return c !== 0;
    case "semver_gt":
      return c > 0;
    case "semver_gte":
      return c >= 0;
    case "semver_lt":
      return c < 0;
    default:
      return c <= 0;
  }
}

function between(filterValue: unknown, actual: unknown): boolean | undefined {
  if (!Array.isArray(filterValue) || filterValue.length !== 2) return undefined;
  const [min, max] = filterValue.map(toNumber);
  const a = toNumber(actual);
  if (min === undefined || max === undefined || a === undefined || Number.isNaN(a)) return undefined;
  return a >= min && a <= max;
}

/**
 * Whether one person or group property filter matches `properties`, with the server's semantics:
 * any error (unparseable number, date or version, invalid regex) is a non-match. `zone` is the
 * project's time zone (relative dates and dates without an offset); absent means UTC.
 */
export function matchProperty(
  filter: PropertyFilter,
  properties: Record<string, unknown>,
  now: Date,
  zone?: string,
): boolean {
  const operator = filter.operator ?? "exact";
  const present = Object.hasOwn(properties, filter.key);
  if (!present) return MATCH_WHEN_MISSING.has(operator);
  const actual = properties[filter.key];
  const value = filter.value;
  if (operator === "is_set") return true;
  if (operator === "is_not_set") return false;
  if (value === undefined) return false;

  switch (operator) {
    case "exact":
      return exactMatch(value, actual);
    case "is_not":
      return !exactMatch(value, actual);
    case "icontains":
    case "not_icontains": {
      const hit = asciiLower(stringify(actual)).includes(asciiLower(stringify(value)));
      return operator === "icontains" ? hit : !hit;
    }
    case "icontains_multi":
    case "not_icontains_multi": {
      const text = asciiLower(stringify(actual));
      const hit = Array.isArray(value) && value.some((v) => text.includes(asciiLower(stringify(v))));
      return operator === "icontains_multi" ? hit : !hit;
    }
    case "starts_with":
    case "not_starts_with": {
      const hit = asciiLower(stringify(actual)).startsWith(asciiLower(stringify(value)));
      return operator === "starts_with" ? hit : !hit;
    }
    case "ends_with":
    case "not_ends_with": {
      const hit = asciiLower(stringify(actual)).endsWith(asciiLower(stringify(value)));
      return operator === "ends_with" ? hit : !hit;
    }
    case "regex":
    case "not_regex": {
      const re = compile(stringify(value));
      if (!re) return false;
      const hit = re.test(stringify(actual));
      return operator === "regex" ? hit : !hit;
    }
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      return compareNumbers(operator, value, actual);
    case "is_date_before":
    case "is_date_after":
    case "is_date_exact":
      return compareDates(operator, value, actual, now, zone);
    case "between":
    case "not_between": {
      const inside = between(value, actual);
      if (inside === undefined) return false;
      return operator === "between" ? inside : !inside;
    }
    default:
      if (operator.startsWith("semver_")) return compareSemver(operator, value, actual);
      return false;
  }
}
