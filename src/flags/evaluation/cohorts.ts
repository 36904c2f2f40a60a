import { matchProperty, type PropertyFilter } from "./properties";

/** A cohort definition as SDKs receive it in `cohorts`: `{type: AND|OR, values: [group | leaf]}`. */
export interface PropertyGroup {
  type?: string;
  values?: Array<PropertyGroup | PropertyFilter>;
}

export interface CohortSource {
  /** Dynamic cohorts by id (string): their property-group trees. */
  definitions: Record<string, PropertyGroup>;
  /** Ids of static cohorts the person belongs to. */
  staticMembership: ReadonlySet<number>;
  /** The project's time zone, for date filters in cohort definitions (absent = UTC). */
  timezone?: string;
}

const isGroup = (entry: PropertyGroup | PropertyFilter): entry is PropertyGroup =>
  Array.isArray((entry as PropertyGroup).values) && !("key" in entry);

/**
 * Whether the person belongs to cohort `id` (server semantics, flag-eval.md §4.7): static cohorts
 * by stored membership, dynamic ones by evaluating their tree against person properties; nested
 * cohort references recurse; a cycle, an unknown cohort or a behavioural leaf is a non-match.
 */
export function inCohort(
  id: number,
  source: CohortSource,
  properties: Record<string, unknown>,
  now: Date,
  visiting: Set<number> = new Set(),
): boolean {
  if (source.staticMembership.has(id)) return true;
  const tree = source.definitions[String(id)];
  if (!tree || visiting.has(id)) return false;
  visiting.add(id);
  try {
    return matchGroup(tree, source, properties, now, visiting);
  } finally {
    visiting.delete(id);
  }
}

function matchGroup(
  group: PropertyGroup,
  source: CohortSource,
  properties: Record<string, unknown>,
  now: Date,
  visiting: Set<number>,
): boolean {
  const values = group.values ?? [];
  if (!values.length) return true;
  const isAnd = group.type !== "OR";
  for (const entry of values) {
    const hit = isGroup(entry)
      ? matchGroup(entry, source, properties, now, visiting)
      : matchLeaf(entry, source, properties, now, visiting);
    if (isAnd && !hit) return false;
    if (!isAnd && hit) return true;
  }
  return isAnd;
}

function matchLeaf(
  leaf: PropertyFilter,
  source: CohortSource,
  properties: Record<string, unknown>,
  now: Date,
  visiting: Set<number>,
): boolean {
  let hit: boolean;
  if (leaf.type === "cohort") {
    const id = Number(leaf.value);
    hit = Number.isInteger(id) && inCohort(id, source, properties, now, visiting);
    if (leaf.operator === "not_in") hit = !hit;
  } else if (leaf.type === "person" || leaf.type === undefined) {
    hit = matchProperty(leaf, properties, now, source.timezone);
  } else {
    // Behavioural (event) leaves need event history a flag request does not carry.
    hit = false;
  }
  return leaf.negation ? !hit : hit;
}

/** The dynamic cohort ids a tree refers to (directly), for building the SDK payload. */
export function referencedCohorts(group: PropertyGroup | undefined, into: Set<number> = new Set()): Set<number> {
  for (const entry of group?.values ?? []) {
    if (isGroup(entry)) referencedCohorts(entry, into);
    else if (entry.type === "cohort" && Number.isInteger(Number(entry.value))) into.add(Number(entry.value));
  }
  return into;
}
