import { sha1Top60 } from "./sha1";

/** 2^60 - 1 as PostHog writes it; as a float64 it is exactly 2^60. */
// eslint-disable-next-line no-loss-of-precision -- the rounding to 2^60 is PostHog's own, and the hashes depend on it.
const LONG_SCALE = 0xfffffffffffffff;

/** The first 15 hex digits of the SHA-1 (60 bits, see sha1Top60) as a float in [0, 1]. */
export function hashFraction(input: string): number {
  return sha1Top60(input) / LONG_SCALE;
}

/**
 * PostHog's bucketing hash of `key.identifier+salt` (flag-eval.md §1). The server answers 0.0 for
 * an empty identifier without hashing; we copy that rule.
 */
export function flagHash(key: string, identifier: string, salt = ""): number {
  if (identifier === "") return 0;
  return hashFraction(`${key}.${identifier}${salt}`);
}

/** The holdout hash: the literal `holdout-` prefix, no empty-identifier shortcut. */
export function holdoutHash(identifier: string): number {
  return hashFraction(`holdout-${identifier}`);
}

/** Whether a bucketing hash falls inside a percentage: inclusive, as PostHog compares `hash <= pct / 100`. */
export const hashWithin = (hash: number, percentage: number) => hash <= percentage / 100;

/**
 * The variant a variant hash selects: the first whose cumulative share exceeds the hash. Past the
 * last one (shares summing below 100%, or a hash of exactly 1) there is none: the flag is plain true.
 */
export function variantAt(
  hash: number,
  variants: readonly { key: string; rollout_percentage?: number | null }[],
): string | null {
  let cumulative = 0;
  for (const variant of variants) {
    cumulative += (variant.rollout_percentage ?? 0) / 100;
    if (hash < cumulative) return variant.key;
  }
  return null;
}
