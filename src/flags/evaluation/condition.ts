import { flagHash, hashWithin } from "./hash";
import { inCohort } from "./cohorts";
import { matchProperty, type PropertyFilter } from "./properties";
import type { Condition, EvaluationContext, FlagDefinition } from "./types";

/** How a condition turned out before reasons are ranked. */
export type ConditionOutcome =
  { kind: "match"; identifier: string } | { kind: "out_of_rollout" } | { kind: "no_match" } | { kind: "no_group" };

/** Answers a flag dependency filter: the dependency's value (false, true or a variant). */
export type DependencyValue = (key: string) => boolean | string;

/** The effective aggregation of a condition: its own index when present (even null), else the flag's. */
export function aggregationOf(flag: FlagDefinition, condition: Condition): number | null {
  if (condition && Object.hasOwn(condition, "aggregation_group_type_index")) {
    return condition.aggregation_group_type_index ?? null;
  }
  return flag.filters.aggregation_group_type_index ?? null;
}

function groupKeyOf(ctx: EvaluationContext, index: number): string | undefined {
  const name = ctx.groupTypeMapping[String(index)];
  const key = name === undefined ? undefined : ctx.groups[name];
  if (typeof key === "number" && Number.isFinite(key)) return String(key);
  return typeof key === "string" && key !== "" ? key : undefined;
}

export function groupPropertiesOf(ctx: EvaluationContext, index: number): Record<string, unknown> {
  const name = ctx.groupTypeMapping[String(index)];
  const props = (name !== undefined && ctx.groupProperties[name]) || {};
  const key = groupKeyOf(ctx, index);
  return key === undefined ? props : { $group_key: key, ...props };
}

/**
 * The identifier a person condition hashes (flag-eval.md §1.3): the device id for device
 * bucketing (undefined when absent), the continuity override / anonymous id for continuity
 * flags, else the distinct id.
 */
export function personIdentifier(
  flag: FlagDefinition,
  ctx: EvaluationContext,
  useOverride: boolean,
): string | undefined {
  const bucketing = flag.bucketing_identifier ?? flag.filters.bucketing_identifier;
  if (bucketing === "device_id") return ctx.deviceId || undefined;
  if (flag.ensure_experience_continuity) {
    return (useOverride ? ctx.hashKeyOverrides[flag.key] : undefined) ?? (ctx.anonDistinctId || ctx.distinctId);
  }
  return ctx.distinctId;
}

function dependencyMatches(filter: PropertyFilter, value: DependencyValue): boolean {
  if (filter.operator !== "flag_evaluates_to") return false;
  const actual = value(filter.key);
  if (filter.value === true) return actual !== false;
  if (filter.value === false) return actual === false;
  return typeof filter.value === "string" && actual === filter.value;
}

function cohortMatches(filter: PropertyFilter, ctx: EvaluationContext): boolean {
  const id = Number(filter.value);
  const member = Number.isInteger(id) && inCohort(id, ctx.cohorts, ctx.personProperties, ctx.now);
  return filter.operator === "not_in" ? !member : member;
}

/** Properties of one condition (ANDed; cohort filters last, as the server defers them). */
export function propertiesMatch(
  flag: FlagDefinition,
  condition: Condition,
  ctx: EvaluationContext,
  dependency: DependencyValue,
): boolean {
  const aggregation = aggregationOf(flag, condition);
  const filters = condition.properties ?? [];
  for (const filter of filters) {
    if (filter.type === "cohort") continue;
    if (filter.type === "flag") {
      if (!dependencyMatches(filter, dependency)) return false;
      continue;
    }
    const bag =
      filter.type === "group"
        ? groupPropertiesOf(ctx, filter.group_type_index ?? aggregation ?? -1)
        : aggregation !== null && filter.type !== "person"
          ? groupPropertiesOf(ctx, aggregation)
          : ctx.personProperties;
    if (!matchProperty(filter, bag, ctx.now, ctx.cohorts.timezone)) return false;
  }
  return filters.every((f) => f.type !== "cohort" || cohortMatches(f, ctx));
}

export function inRollout(key: string, identifier: string, rollout: number | null | undefined): boolean {
  if (rollout === null || rollout === undefined || rollout === 100) return true;
  return hashWithin(flagHash(key, identifier), rollout);
}

/** One release condition: group key or device id present, properties, then rollout. */
export function evaluateCondition(
  flag: FlagDefinition,
  condition: Condition,
  ctx: EvaluationContext,
  dependency: DependencyValue,
): ConditionOutcome {
  const aggregation = aggregationOf(flag, condition);
  let identifier: string | undefined;
  if (aggregation !== null) {
    identifier = groupKeyOf(ctx, aggregation);
    if (identifier === undefined) return { kind: "no_group" };
  } else {
    identifier = personIdentifier(flag, ctx, true);
    if (identifier === undefined) return { kind: "out_of_rollout" };
  }
  if (!propertiesMatch(flag, condition, ctx, dependency)) return { kind: "no_match" };
  if (!inRollout(flag.key, identifier, condition.rollout_percentage)) return { kind: "out_of_rollout" };
  return { kind: "match", identifier };
}
