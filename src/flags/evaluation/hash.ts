import { sha1Words } from "./sha1";

/** 2^60 - 1 as PostHog writes it; as a float64 it is exactly 2^60. */
const LONG_SCALE = 0xfffffffffffffff;

/**
 * The first 15 hex digits of the SHA-1 (60 bits: the first word and the top 28 bits of the
 * second) as a float in [0, 1]. `h0 * 2^28` is exact and the single addition rounds the 60-bit
 * integer to float64 exactly once, as `Number(BigInt("0x" + hex15))` does.
 */
export function hashFraction(input: string): number {
  const [h0, h1] = sha1Words(input);
  return (h0 * 0x10000000 + (h1 >>> 4)) / LONG_SCALE;
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
