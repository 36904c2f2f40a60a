/**
 * Scopes are `*` or `<area>:<read|write>`; `area:write` implies `area:read`.
 * The list is the spec's, plus the areas design.md adds (cohort, project) and PostHog's for the Query API
 * and the data definitions (query, event_definition, property_definition).
 */
export const SCOPE_AREAS = [
  "person",
  "cohort",
  "activity_log",
  "feature_flag",
  "endpoint",
  "project",
  "query",
  "event_definition",
  "property_definition",
] as const;

export type ScopeArea = (typeof SCOPE_AREAS)[number];
export type Scope = `${ScopeArea}:${"read" | "write"}`;

export const ALL_SCOPES: readonly string[] = ["*", ...SCOPE_AREAS.flatMap((area) => [`${area}:read`, `${area}:write`])];

export function isKnownScope(scope: string): boolean {
  return ALL_SCOPES.includes(scope);
}

export function hasScope(granted: readonly string[], required: Scope): boolean {
  if (granted.includes("*") || granted.includes(required)) return true;
  const [area, level] = required.split(":");
  return level === "read" && granted.includes(`${area}:write`);
}

/** The first required scope the key lacks, or undefined when it holds them all. */
export function firstMissingScope(granted: readonly string[], required: readonly Scope[]): Scope | undefined {
  return required.find((scope) => !hasScope(granted, scope));
}
