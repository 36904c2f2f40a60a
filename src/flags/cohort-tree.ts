import type { PropertyGroup } from "./evaluation/cohorts";

/**
 * A dynamic cohort's rule as the property-group tree SDKs receive in `cohorts`: PostHog's
 * `filters.properties`, or the legacy `filters.groups` (groups ORed, each group's properties ANDed).
 */
export function cohortTree(filters: Record<string, unknown> | null | undefined): PropertyGroup {
  if (filters?.properties && typeof filters.properties === "object") {
    const properties = filters.properties as PropertyGroup | NonNullable<PropertyGroup["values"]>;
    return Array.isArray(properties) ? { type: "AND", values: properties } : properties;
  }
  if (Array.isArray(filters?.groups)) {
    return {
      type: "OR",
      values: filters.groups.map((g) => ({
        type: "AND",
        values: ((g as { properties?: unknown })?.properties ?? []) as PropertyGroup["values"],
      })),
    };
  }
  return { type: "AND", values: [] };
}
