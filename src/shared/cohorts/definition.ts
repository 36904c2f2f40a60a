import { validationError } from "../../lib/errors";
import { parseFilterGroup, type FilterGroup } from "../filters/types";

/**
 * A dynamic cohort's membership rule from its PostHog `filters`: `{properties: {type, values}}`,
 * or the legacy `groups: [{properties: [...]}, ...]` (groups ORed, filters in a group ANDed).
 */
export function cohortFilterGroup(filters: Record<string, unknown>, attr = "filters"): FilterGroup {
  if (filters.properties !== undefined) return parseFilterGroup(filters.properties, attr, "person");
  if (Array.isArray(filters.groups)) {
    return {
      type: "OR",
      values: filters.groups.map((g) => {
        const props = g && typeof g === "object" ? (g as Record<string, unknown>).properties : undefined;
        if (!Array.isArray(props)) throw validationError("Each cohort group needs a `properties` list.", attr);
        return parseFilterGroup(props, attr, "person");
      }),
    };
  }
  throw validationError("A dynamic cohort needs `filters.properties` (a property filter group).", attr);
}
