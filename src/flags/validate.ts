import { validationError } from "../lib/errors";
import { isObject } from "../lib/json";
import type { Condition, FlagFilters } from "./evaluation/types";
import { checkProperty, type FilterReferences } from "./validate-property";

export const KEY_PATTERN = /^[a-zA-Z0-9_-]+$/;

const invalid = (detail: string, code = "invalid_input") => validationError(detail, "filters", code);

export function checkKeyFormat(key: string) {
  if (key.length > 400)
    throw validationError("Ensure this field has no more than 400 characters.", "key", "max_length");
  if (!KEY_PATTERN.test(key)) {
    throw validationError("Only letters, numbers, hyphens (-) & underscores (_) are allowed.", "key", "invalid_key");
  }
}

const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

function checkRollout(value: unknown, path: string) {
  if (value === null || value === undefined) return;
  if (!isNumber(value) || value < 0 || value > 100) {
    throw invalid(`${path}.rollout_percentage must be between 0 and 100, got ${JSON.stringify(value)}`);
  }
}

function checkVariants(filters: FlagFilters): string[] {
  const multivariate = filters.multivariate;
  if (multivariate === null || multivariate === undefined) return [];
  if (!isObject(multivariate) || !Array.isArray(multivariate.variants))
    throw invalid("multivariate.variants must be a list");
  const keys: string[] = [];
  let sum = 0;
  multivariate.variants.forEach((variant, i) => {
    if (!isObject(variant) || typeof variant.key !== "string" || !variant.key)
      throw invalid(`multivariate.variants[${i}].key must be a string`);
    const pct = variant.rollout_percentage ?? 0;
    if (!isNumber(pct) || pct < 0 || pct > 100)
      throw invalid(`multivariate.variants[${i}].rollout_percentage must be between 0 and 100`);
    if (keys.includes(variant.key)) throw invalid(`Variant keys must be unique: '${variant.key}' appears twice.`);
    keys.push(variant.key);
    sum += pct;
  });
  if (keys.length && Math.abs(sum - 100) > 1e-9)
    throw invalid("Invalid variant definitions: Variant rollout percentages must sum to 100.");
  return keys;
}

function checkPayloads(filters: FlagFilters, variantKeys: string[]) {
  const payloads = filters.payloads;
  if (payloads === undefined || payloads === null) return;
  if (!isObject(payloads)) throw invalid("Payloads must be passed as a dictionary");
  for (const [slot, value] of Object.entries(payloads)) {
    if (variantKeys.length ? !variantKeys.includes(slot) && !slot.startsWith("holdout-") : slot !== "true") {
      throw invalid(
        variantKeys.length
          ? "Payload keys must match a variant key for multivariate flags"
          : "Payload keys must be 'true' for boolean flags",
      );
    }
    if (typeof value === "string") {
      try {
        JSON.parse(value);
      } catch {
        throw invalid("Payload value is not valid JSON");
      }
    }
  }
}

/** Object and array payloads are stored as JSON strings, as PostHog normalizes them. */
export function normalizePayloads(filters: Record<string, unknown>): Record<string, unknown> {
  if (!isObject(filters.payloads)) return filters;
  const payloads = Object.fromEntries(
    Object.entries(filters.payloads).map(([k, v]) => [k, typeof v === "string" || v === null ? v : JSON.stringify(v)]),
  );
  return { ...filters, payloads };
}

async function checkConditions(
  list: unknown,
  name: string,
  filters: FlagFilters,
  variantKeys: string[],
  ctx: Ctx,
): Promise<void> {
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) throw invalid(`${name} must be a list`);
  for (let i = 0; i < list.length; i++) {
    const path = `${name}[${i}]`;
    if (!isObject(list[i])) throw invalid(`${path} must be an object`);
    const group = list[i] as Condition;
    checkRollout(group.rollout_percentage, path);
    if (group.variant !== undefined && group.variant !== null && !variantKeys.includes(String(group.variant))) {
      throw invalid("Filters are not valid (variant override does not exist)");
    }
    const aggregation =
      name === "super_groups"
        ? null
        : Object.hasOwn(group, "aggregation_group_type_index")
          ? (group.aggregation_group_type_index ?? null)
          : (filters.aggregation_group_type_index ?? null);
    if (group.properties !== undefined && group.properties !== null && !Array.isArray(group.properties)) {
      throw invalid(`${path}.properties must be a list`);
    }
    for (const [j, p] of (group.properties ?? []).entries()) {
      await checkProperty(p, `${path}.properties[${j}]`, aggregation, ctx.refs, ctx.flagId, ctx.flagKey, ctx.dependsOn);
    }
  }
}

interface Ctx {
  refs: FilterReferences;
  flagId: number | undefined;
  flagKey: string;
  dependsOn: number[];
}

function findCycle(start: number, edges: Map<number, number[]>): number[] | undefined {
  const path: number[] = [];
  const seen = new Set<number>();
  const visit = (node: number): boolean => {
    path.push(node);
    for (const next of edges.get(node) ?? []) {
      if (next === start) return (path.push(next), true);
      if (!seen.has(next)) {
        seen.add(next);
        if (visit(next)) return true;
      }
    }
    path.pop();
    return false;
  };
  return visit(start) ? path : undefined;
}

/** PostHog V-B's filters rules (flags-api.md §4.3) plus a 0-100 rollout check. Throws the first error. */
export async function validateFilters(
  filters: Record<string, unknown>,
  opts: {
    creating: boolean;
    flagId?: number;
    flagKey: string;
    refs: FilterReferences;
    keyOf: (id: number) => Promise<string>;
  },
) {
  const f = filters as FlagFilters;
  if (opts.creating && (!Array.isArray(f.groups) || f.groups.length === 0)) {
    throw invalid("Feature flags must have at least one condition set (group).");
  }
  const aggregation = f.aggregation_group_type_index;
  if (aggregation !== undefined && aggregation !== null && !(Number.isInteger(aggregation) && aggregation >= 0)) {
    throw invalid("aggregation_group_type_index must be a non-negative integer or null");
  }
  const variantKeys = checkVariants(f);
  const ctx: Ctx = { refs: opts.refs, flagId: opts.flagId, flagKey: opts.flagKey, dependsOn: [] };
  await checkConditions(f.groups, "groups", f, variantKeys, ctx);
  await checkConditions(f.super_groups, "super_groups", f, variantKeys, ctx);
  if (f.holdout !== undefined && f.holdout !== null) {
    if (!isObject(f.holdout) || !Number.isInteger(f.holdout.id)) throw invalid("holdout.id must be an integer");
    if (
      !isNumber(f.holdout.exclusion_percentage) ||
      f.holdout.exclusion_percentage < 0 ||
      f.holdout.exclusion_percentage > 100
    ) {
      throw invalid("holdout.exclusion_percentage must be between 0 and 100");
    }
  }
  checkPayloads(f, variantKeys);
  if (ctx.dependsOn.length && opts.flagId !== undefined) {
    const graph = await opts.refs.dependencyGraph();
    graph.set(opts.flagId, ctx.dependsOn);
    const cycle = findCycle(opts.flagId, graph);
    if (cycle) throw invalid(`Circular dependency detected: ${(await Promise.all(cycle.map(opts.keyOf))).join(" → ")}`);
  }
}
