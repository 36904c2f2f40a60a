import { validationError } from "../lib/errors";
import { isObject } from "../lib/json";
import { checkFilterSize, OPERATORS as FILTER_OPERATORS } from "../shared/filters";
import { parseFilterDate } from "./evaluation/dates";
import type { PropertyFilter } from "./evaluation/types";

/** What filter validation needs to know about the project (answered by the service from D1). */
export interface FilterReferences {
  /** The cohort's name and whether it (or a cohort it uses) filters on events; undefined if it does not exist. */
  cohort(id: number): Promise<{ name: string; behavioral: boolean } | undefined>;
  /** A live flag of the project by id. */
  flag(id: number): Promise<{ id: number; key: string; active: boolean } | undefined>;
  /** Flag ids each flag depends on, for cycle detection (the flag being saved excluded). */
  dependencyGraph(): Promise<Map<number, number[]>>;
}

/** Flags evaluate every operator the SQL property filters compile, and these besides. */
const OPERATORS = new Set<string>([
  ...FILTER_OPERATORS,
  "icontains_multi",
  "not_icontains_multi",
  "starts_with",
  "not_starts_with",
  "ends_with",
  "not_ends_with",
  "between",
  "not_between",
  "semver_eq",
  "semver_neq",
  "semver_gt",
  "semver_gte",
  "semver_lt",
  "semver_lte",
  "semver_tilde",
  "semver_caret",
  "semver_wildcard",
  "flag_evaluates_to",
]);
const SCALAR_OPERATORS = new Set(["regex", "not_regex", "icontains", "not_icontains", "gt", "gte", "lt", "lte"]);

const invalid = (detail: string, code = "invalid_input") => validationError(detail, "filters", code);

/** One property filter of a condition (flags-api.md §4.3 rules 2, 3, 6-10); flag dependencies are collected into `dependsOn`. */
export async function checkProperty(
  p: unknown,
  path: string,
  aggregation: number | null,
  refs: FilterReferences,
  flagId: number | undefined,
  flagKey: string,
  dependsOn: number[],
) {
  if (!isObject(p) || typeof p.key !== "string") throw invalid(`${path}: a property filter needs a string key`);
  const property = p as unknown as PropertyFilter;
  const type = property.type ?? "person";
  const operator = property.operator ?? "exact";
  if (!OPERATORS.has(operator)) throw invalid(`${path}.operator: unsupported operator for feature flags`);
  if ((operator === "in" || operator === "not_in") && type !== "cohort") {
    throw invalid(
      `The '${operator}' operator is only valid for cohort properties, not '${type}' properties.`,
      "invalid_operator",
    );
  }
  if (aggregation === null && !["person", "cohort", "flag"].includes(type)) {
    throw invalid("Filters are not valid (can only use person, cohort, and flag properties)");
  }
  if (aggregation !== null && (type !== "group" || (property.group_type_index ?? aggregation) !== aggregation)) {
    throw invalid("Filters are not valid (can only use group properties)");
  }
  checkFilterSize(property.key, property.value, "filters");
  if (SCALAR_OPERATORS.has(operator) && (typeof property.value === "object" || property.value === undefined)) {
    throw invalid(`Invalid value for operator ${operator}: ${JSON.stringify(property.value)}`, "invalid_value");
  }
  if (
    (operator === "is_date_before" || operator === "is_date_after" || operator === "is_date_exact") &&
    !parseFilterDate(property.value, new Date())
  ) {
    throw invalid(`Invalid date value: ${String(property.value)}`, "invalid_date");
  }
  if (type === "cohort") {
    const id = Number(property.value);
    const cohort = Number.isInteger(id) ? await refs.cohort(id) : undefined;
    if (!cohort) throw invalid(`Cohort with id ${String(property.value)} does not exist`, "cohort_does_not_exist");
    if (cohort.behavioral)
      throw invalid(
        `Cohort '${cohort.name}' with filters on events cannot be used in feature flags.`,
        "behavioral_cohort_found",
      );
  }
  if (type === "flag") {
    if (operator !== "flag_evaluates_to") throw invalid("Flag properties must use the 'flag_evaluates_to' operator");
    if (!/^\d+$/.test(property.key)) {
      throw invalid(
        `Flag dependencies must reference flag IDs (integers), not flag keys. Invalid reference: '${property.key}'`,
      );
    }
    const id = Number(property.key);
    if (id === flagId) throw invalid(`Feature flag '${flagKey}' cannot depend on itself`);
    const dep = await refs.flag(id);
    if (!dep) throw invalid(`Flag dependency references non-existent flag with ID ${id}`);
    if (!dep.active) {
      throw invalid(
        `Cannot create dependency on disabled flag '${dep.key}' (ID: ${id}). Flag dependencies must reference active flags only.`,
      );
    }
    dependsOn.push(id);
  }
}
