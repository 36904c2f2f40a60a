import type { FlagFilters } from "./evaluation/types";
import type { FlagRow } from "./row";

const STALE_AFTER_MS = 30 * 86_400_000;

/** PostHog's legacy fallback: a flag stored with no `groups` is one condition at 100%. */
export function effectiveFilters(filters: Record<string, unknown>): FlagFilters & Record<string, unknown> {
  if (Array.isArray(filters.groups)) return filters as FlagFilters & Record<string, unknown>;
  return { ...filters, groups: [{ properties: [], rollout_percentage: null }] };
}

/**
 * A flag that gives every user the same answer (flags-api.md §3.1/§5.1): a condition at 100%
 * with no properties, on a boolean flag, with a 100% variant, or with a variant override.
 * Returns the reason text, or undefined when not fully rolled out.
 */
export function fullRolloutReason(rawFilters: Record<string, unknown>): string | undefined {
  const filters = effectiveFilters(rawFilters);
  const variants = filters.multivariate?.variants ?? [];
  for (const group of filters.groups ?? []) {
    const full = (group.rollout_percentage ?? 100) === 100 && !(group.properties ?? []).length;
    if (!full) continue;
    if (group.variant) return `This flag will always use the variant "${group.variant}"`;
    if (!variants.length) return 'This boolean flag will always evaluate to "true"';
    const whole = variants.find((v) => v.rollout_percentage === 100);
    if (whole) return `This flag will always use the variant "${whole.key}"`;
  }
  return undefined;
}

export type FlagStatus = { status: "active" | "stale" | "deleted" | "unknown"; reason: string };

/** The V-B status: deleted, stale (unused for 30 days, or fully rolled out and older than 30 days), active. */
export function flagStatus(flag: FlagRow, now = Date.now()): FlagStatus {
  if (flag.deleted) return { status: "deleted", reason: "Flag has been deleted" };
  if (flag.active && flag.lastCalledAt && now - Date.parse(flag.lastCalledAt) > STALE_AFTER_MS) {
    const days = Math.floor((now - Date.parse(flag.lastCalledAt)) / 86_400_000);
    return { status: "stale", reason: `Flag has not been called in ${days} days` };
  }
  if (flag.active && !flag.lastCalledAt && now - Date.parse(flag.createdAt) > STALE_AFTER_MS) {
    const reason = fullRolloutReason(flag.filters);
    if (reason) return { status: "stale", reason };
  }
  return { status: "active", reason: "Flag is active and being evaluated" };
}
