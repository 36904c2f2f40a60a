import { flagHash, hashWithin, holdoutHash, variantAt } from "./hash";
import {
  aggregationOf,
  evaluateCondition,
  groupPropertiesOf,
  personIdentifier,
  propertiesMatch,
  inRollout,
} from "./condition";
import { errorDescription, FlagEvaluationError } from "./errors";
import { REASON_SCORE, reason, type ReasonCode } from "./reasons";
import type { Condition, EvaluationContext, FlagDefinition, FlagResult } from "./types";

/**
 * The server-side flag evaluator (PostHog's `/flags` semantics, flag-eval.md §3): dependency
 * check, early-access enrollment, holdout, then release conditions in declared order.
 * This is the only evaluator: /flags, /decide, evaluation_reasons and my_flags all call it.
 */
export function evaluateFlags(
  flags: FlagDefinition[],
  ctx: EvaluationContext,
  only?: ReadonlySet<string>,
  byKey: ReadonlyMap<string, FlagDefinition> = new Map(flags.map((f) => [f.key, f])),
): Record<string, FlagResult> {
  const memo = new Map<string, FlagResult>();
  const inProgress = new Set<string>();

  const dependency = (key: string): boolean | string => {
    const dep = byKey.get(key);
    if (!dep?.active || dep.deleted || inProgress.has(key)) return false;
    const r = evaluate(dep);
    if (r.failed) throw new FlagEvaluationError("dependency_failed");
    return r.enabled ? (r.variant ?? true) : false;
  };
  // One flag's failure (stored data it needs could not be read, or an exception in its
  // evaluation) becomes an error record for that flag; the others are still evaluated.
  const evaluate = (flag: FlagDefinition): FlagResult => {
    const known = memo.get(flag.key);
    if (known) return known;
    inProgress.add(flag.key);
    let result: FlagResult;
    try {
      result = evaluateOne(flag, ctx, byKey, dependency);
    } catch (err) {
      result = failure(flag, err instanceof FlagEvaluationError ? err.code : "evaluation_error");
    } finally {
      inProgress.delete(flag.key);
    }
    memo.set(flag.key, result);
    return result;
  };

  const out: Record<string, FlagResult> = {};
  for (const flag of flags) {
    if (!flag.active || flag.deleted) continue;
    if (only && !only.has(flag.key)) continue;
    out[flag.key] = evaluate(flag);
  }
  return out;
}

/** An error record (flag-eval.md §5): disabled, no variant, the error code as the reason. */
function failure(flag: FlagDefinition, code: string): FlagResult {
  return {
    key: flag.key,
    enabled: false,
    variant: null,
    reason: { code, condition_index: null, description: errorDescription(code) },
    payload: null,
    flag,
    failed: true,
  };
}

function hasBrokenDependency(flag: FlagDefinition, byKey: ReadonlyMap<string, FlagDefinition>): boolean {
  for (const condition of flag.filters.groups ?? []) {
    for (const filter of condition.properties ?? []) {
      if (filter.type !== "flag") continue;
      if (!byKey.has(filter.key)) return true;
      if (Array.isArray(filter.dependency_chain) && filter.dependency_chain.length === 0) return true;
    }
  }
  return false;
}

function variantFor(flag: FlagDefinition, condition: Condition, identifier: string): string | null {
  const variants = flag.filters.multivariate?.variants ?? [];
  if (!variants.length) return null;
  if (condition.variant && variants.some((v) => v.key === condition.variant)) return condition.variant;
  return variantAt(flagHash(flag.key, identifier, "variant"), variants);
}

const payloadOf = (flag: FlagDefinition, slot: string) => flag.filters.payloads?.[slot] ?? null;

function result(
  flag: FlagDefinition,
  enabled: boolean,
  variant: string | null,
  code: ReasonCode,
  index: number | null,
  payload: unknown,
  groupsSkipped = false,
): FlagResult {
  return { key: flag.key, enabled, variant, reason: reason(code, index, groupsSkipped), payload, flag };
}

/** Early-access enrollment (super condition); undefined when it does not decide. */
function enrollment(
  flag: FlagDefinition,
  ctx: EvaluationContext,
  dependency: (key: string) => boolean | string,
): FlagResult | undefined {
  const props = ctx.personProperties;
  if (flag.filters.feature_enrollment === true) {
    const name = `$feature_enrollment/${flag.key}`;
    if (!Object.hasOwn(props, name)) return undefined;
    const value = props[name];
    const enabled = value === true || value === "true";
    return result(flag, enabled, null, "super_condition_value", 0, payloadOf(flag, "true"));
  }
  const superGroup = flag.filters.super_groups?.[0];
  const keys = (superGroup?.properties ?? []).map((p) => p.key);
  if (!superGroup || !keys.length || !keys.some((k) => Object.hasOwn(props, k))) return undefined;
  const personCondition = { ...superGroup, aggregation_group_type_index: null };
  const identifier = personIdentifier(flag, ctx, true) ?? ctx.distinctId;
  const enabled =
    propertiesMatch(flag, personCondition, ctx, dependency) &&
    inRollout(flag.key, identifier, superGroup.rollout_percentage);
  return result(flag, enabled, null, "super_condition_value", 0, enabled ? payloadOf(flag, "true") : null);
}

function holdout(flag: FlagDefinition, ctx: EvaluationContext): FlagResult | undefined {
  const h = flag.filters.holdout;
  if (!h || typeof h.id !== "number") return undefined;
  const pct = Math.min(100, Math.max(0, Number(h.exclusion_percentage) || 0));
  const aggregation = flag.filters.aggregation_group_type_index ?? null;
  const identifier =
    aggregation !== null
      ? (groupPropertiesOf(ctx, aggregation).$group_key as string | undefined)
      : personIdentifier(flag, ctx, false);
  if (identifier === undefined) return undefined;
  if (pct >= 100 || hashWithin(holdoutHash(identifier), pct)) {
    const variant = `holdout-${h.id}`;
    return result(flag, true, variant, "holdout_condition_value", null, payloadOf(flag, variant));
  }
  return undefined;
}

function evaluateOne(
  flag: FlagDefinition,
  ctx: EvaluationContext,
  byKey: ReadonlyMap<string, FlagDefinition>,
  dependency: (key: string) => boolean | string,
): FlagResult {
  if (hasBrokenDependency(flag, byKey)) return result(flag, false, null, "missing_dependency", null, null);
  const early = enrollment(flag, ctx, dependency) ?? holdout(flag, ctx);
  if (early) return early;

  let best: { code: ReasonCode; index: number | null } = { code: "no_group_type", index: null };
  let groupsSkipped = false;
  const conditions = flag.filters.groups ?? [];
  for (let i = 0; i < conditions.length; i++) {
    const condition = conditions[i] ?? {};
    const outcome = evaluateCondition(flag, condition, ctx, dependency);
    if (outcome.kind === "match") {
      const variant = variantFor(flag, condition, outcome.identifier);
      return result(flag, true, variant, "condition_match", i, payloadOf(flag, variant ?? "true"));
    }
    const code: ReasonCode =
      outcome.kind === "out_of_rollout"
        ? "out_of_rollout_bound"
        : outcome.kind === "no_match"
          ? "no_condition_match"
          : "no_group_type";
    if (outcome.kind === "no_group" && aggregationOf(flag, condition) !== null) groupsSkipped = true;
    if (REASON_SCORE[best.code] <= REASON_SCORE[code]) best = { code, index: i };
    if (outcome.kind === "out_of_rollout" && flag.filters.early_exit === true) break;
  }
  return result(flag, false, null, best.code, best.index, null, groupsSkipped);
}
