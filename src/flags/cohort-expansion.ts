import type { PropertyGroup } from "./evaluation/cohorts";
import type { Condition, FlagDefinition, PropertyFilter } from "./evaluation/types";

const isGroup = (entry: PropertyGroup | PropertyFilter): entry is PropertyGroup =>
  Array.isArray((entry as PropertyGroup).values);

const plainPersonFilter = (entry: PropertyGroup | PropertyFilter): entry is PropertyFilter =>
  !isGroup(entry) && (entry.type === "person" || entry.type === undefined) && !entry.negation;

/** An entry as one list of ANDed person filters, if it is one. */
function andList(entry: PropertyGroup | PropertyFilter): PropertyFilter[] | undefined {
  if (plainPersonFilter(entry)) return [entry];
  if (!isGroup(entry) || !entry.values?.length) return undefined;
  if (entry.type === "OR") return entry.values.length === 1 ? andList(entry.values[0]) : undefined;
  return entry.values.every(plainPersonFilter) ? (entry.values as PropertyFilter[]) : undefined;
}

/** A cohort as ORed lists of ANDed person filters, when it is made only of person properties in that shape. */
function asConditionLists(cohort: PropertyGroup): PropertyFilter[][] | undefined {
  const lists = (cohort.values ?? []).map(andList);
  if (!lists.length || lists.some((l) => !l)) return undefined;
  return cohort.type === "OR" ? (lists as PropertyFilter[][]) : [(lists as PropertyFilter[][]).flat()];
}

/**
 * PostHog's payload without cohorts (flags-api.md §5.7): a flag whose only cohort filter stands
 * alone in its condition, without a variant override, and names a cohort made only of person
 * properties, is rewritten into equivalent conditions so SDKs can still evaluate it locally.
 * Other flags keep their cohort filters (SDKs send those to /flags).
 */
export function expandCohorts(flag: FlagDefinition, cohorts: Map<number, PropertyGroup>): FlagDefinition {
  const groups = flag.filters.groups ?? [];
  const cohortFilters = groups.flatMap((g) => (g?.properties ?? []).filter((p) => p.type === "cohort"));
  if (cohortFilters.length !== 1) return flag;
  const target = groups.findIndex((g) => g?.properties?.some((p) => p.type === "cohort"));
  const condition = groups[target];
  const filter = cohortFilters[0];
  if (condition.properties!.length !== 1 || condition.variant || (filter.operator && filter.operator !== "in"))
    return flag;
  const cohort = cohorts.get(Number(filter.value));
  const lists = cohort && asConditionLists(cohort);
  if (!lists) return flag;
  const expanded: Condition[] = lists.map((properties) => ({ ...condition, properties }));
  return {
    ...flag,
    filters: { ...flag.filters, groups: [...groups.slice(0, target), ...expanded, ...groups.slice(target + 1)] },
  };
}
