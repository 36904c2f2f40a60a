import { describe, it } from "vitest";

/**
 * Conformance suites replay a published source of expectations (PostHog's contract corpus, PostHog's
 * own tests) against edgehog. Every case of the source is declared here, one of three ways, so the
 * conformance reporter (./reporter.ts) can print how much of the source edgehog agrees with:
 *  - `agrees`: the case runs through the public API and must give PostHog's answer;
 *  - `deliberate`: the case runs, but asserts edgehog's documented answer (a row of docs/compatibility.md);
 *  - `notExpressible`: the case cannot be put to edgehog's public API; the reason is recorded.
 * The markers in test names are what the reporter reads; keep them in this file only.
 */
export interface ConformanceSource {
  /** What the cases are, e.g. "PostHog flags contract corpus". */
  name: string;
  /** Version, commit or file the cases come from. */
  version: string;
}

export const SUITE_PREFIX = "conformance › ";
export const NOT_EXPRESSIBLE = "not expressible: ";
export const DELIBERATE = "deliberate difference: ";

export function conformance(source: ConformanceSource, body: () => void) {
  describe(`${SUITE_PREFIX}${source.name} @ ${source.version}`, body);
}

export function agrees(name: string, run: () => Promise<void> | void) {
  it(name, run);
}

/** `compatibilityRow` names the docs/compatibility.md row whose behaviour `run` asserts. */
export function deliberate(name: string, compatibilityRow: string, run: () => Promise<void> | void) {
  it(`${name} ⟨${DELIBERATE}${compatibilityRow}⟩`, run);
}

export function notExpressible(name: string, reason: string) {
  it.skip(`${name} ⟨${NOT_EXPRESSIBLE}${reason}⟩`, () => {});
}
