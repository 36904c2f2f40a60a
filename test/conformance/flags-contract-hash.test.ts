import { beforeAll, expect } from "vitest";
import { flagHash, hashFraction, hashWithin, holdoutHash, variantAt } from "../../src/flags/evaluation/hash";
import { inRollout } from "../../src/flags/evaluation/condition";
import { evaluateFlags } from "../../src/flags/evaluation/matcher";
import type { FlagDefinition } from "../../src/flags/evaluation/types";
import { contextFor } from "../flags/evaluator-context";
import { call, createFlag, createProject, identifyGroup } from "../helpers";
import {
  assertIntact,
  checkedCaseIds,
  CONTRACT_VERSION,
  evaluationCorpus,
  hashCorpus,
  type HashVector,
  type SeedParity,
  type ThresholdVector,
  type VariantVector,
} from "./flags-contract-helpers";
import { agrees, conformance } from "./ledger";

/**
 * corpus/hash_sha1_60_v1.json against edgehog's evaluator (src/flags/evaluation/): hash vectors
 * white-box (hash.ts's `hashFraction`, `flagHash`, `holdoutHash`; rollout through condition.ts's
 * `inRollout`; holdout and variant selection through matcher.ts's `evaluateFlags`), and the
 * identifier rows whose identifier a request can carry also through `/flags`. Threshold and variant
 * rows give a precomputed hash01 and no input: they go to the comparisons the evaluator itself
 * uses on a hash (`hashWithin`, `variantAt`).
 */

/** The IEEE-754 bits of a number, as the corpus's `*_binary64_hex`. */
function binary64Hex(x: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  return view.getBigUint64(0).toString(16).padStart(16, "0");
}

function expectHash(actual: number, expected: number, hex: string | undefined, what: string) {
  expect(
    Object.is(actual, expected),
    `${what}: ${actual} (${binary64Hex(actual)}) ≠ ${expected} (${hex ?? binary64Hex(expected)})`,
  ).toBe(true);
  if (hex) expect(binary64Hex(actual), what).toBe(hex);
}

/** A one-flag definition as PostHog's Rust test builds it: key = the prefix without its dot. */
function oneFlag(key: string, filters: FlagDefinition["filters"]): FlagDefinition {
  return { id: 1, key, active: true, version: 1, filters };
}

function evaluateOne(flag: FlagDefinition, distinctId: string, extra: Parameters<typeof contextFor>[2] = {}) {
  return evaluateFlags([flag], contextFor(distinctId, {}, extra))[flag.key];
}

const flagKeyOf = (prefix: string) => {
  if (!prefix.endsWith(".")) throw new Error(`not a flag-key prefix: ${prefix}`);
  return prefix.slice(0, -1);
};

// ---------------------------------------------------------------------------------------------
// Request level: /flags pins an identifier's hash between two rollout percentages

/**
 * Creates flag `key` at `rollout` percent in a fresh project and asks /flags for `distinctId`
 * (or, for a group flag, `groups`): whether the identifier was included.
 */
async function includedThroughFlags(
  key: string,
  rollout: number,
  request: { distinct_id: string; groups?: Record<string, unknown> },
  groupType?: string,
) {
  const project = await createProject();
  if (groupType) {
    const res = await identifyGroup(project.api_token, groupType, "setup");
    expect(res.status).toBe(200);
  }
  await createFlag(project.id, {
    key,
    filters: {
      groups: [{ properties: [], rollout_percentage: rollout }],
      ...(groupType ? { aggregation_group_type_index: 0 } : {}),
    },
  });
  const res = await call("/flags/?v=2", { method: "POST", key: null, body: { token: project.api_token, ...request } });
  expect(res.status, res.text).toBe(200);
  const detail = res.json.flags[key];
  expect(detail.reason.code, JSON.stringify(detail)).toMatch(/^(condition_match|out_of_rollout_bound)$/);
  return detail.enabled as boolean;
}

/**
 * The hash /flags gives `distinct_id` is pinned to (lo, hi], a window around hash01 that the hashes
 * of the rival readings (no truncation, a UTF-16 or a byte cut) fall outside, so the request shows which
 * identifier was hashed.
 */
async function pinThroughFlags(v: HashVector, distinctId: string) {
  const key = flagKeyOf(v.prefix);
  const lo = v.hash01 - 1e-9;
  const hi = v.hash01 + 1e-9;
  // Rival cuts: none, 200 UTF-16 code units, 200 UTF-8 bytes (a split character decodes to U+FFFD).
  const byteCut = new TextDecoder().decode(new TextEncoder().encode(distinctId).slice(0, 200));
  const rivals = [distinctId, distinctId.slice(0, 200), byteCut]
    .filter((r) => r !== v.identifier)
    .map((r) => hashFraction(`${v.prefix}${r}`));
  for (const rival of rivals) expect(rival <= lo || rival > hi, `a rival reading hashes inside the window`).toBe(true);
  expect(
    await includedThroughFlags(key, hi * 100, { distinct_id: distinctId }),
    `${v.id}: /flags at ${hi * 100}%`,
  ).toBe(true);
  expect(
    await includedThroughFlags(key, lo * 100, { distinct_id: distinctId }),
    `${v.id}: /flags at ${lo * 100}%`,
  ).toBe(false);
}

// ---------------------------------------------------------------------------------------------
// Rows

async function vector(v: HashVector) {
  expect(v.input, "corpus input = prefix + identifier + salt").toBe(`${v.prefix}${v.identifier}${v.salt}`);
  expectHash(
    hashFraction(v.input),
    v.hash01,
    v.hash01_binary64_hex,
    `${v.id}: hashFraction(${JSON.stringify(v.input)})`,
  );

  const holdout = v.prefix === "holdout-";
  if (holdout) expectHash(holdoutHash(v.identifier), v.hash01, v.hash01_binary64_hex, `${v.id}: holdoutHash`);
  else if (v.identifier === "") {
    // Version 1 short-circuits rollout and variant hashing of an empty identifier to 0.0.
    expect(flagHash(flagKeyOf(v.prefix), "", v.salt), `${v.id}: flagHash of the empty identifier`).toBe(0);
    expect(inRollout(flagKeyOf(v.prefix), "", 0), `${v.id}: empty identifier at 0%`).toBe(true);
  } else {
    expectHash(
      flagHash(flagKeyOf(v.prefix), v.identifier, v.salt),
      v.hash01,
      v.hash01_binary64_hex,
      `${v.id}: flagHash`,
    );
  }

  for (const check of v.rollout_checks ?? []) {
    const key = flagKeyOf(v.prefix);
    const what = `${v.id}: rollout ${check.rollout_percentage}%`;
    if (v.identifier_source) {
      // The group key arrives as the JSON number; the evaluator must hash its decimal string.
      const flag = oneFlag(key, {
        groups: [{ properties: [], rollout_percentage: check.rollout_percentage }],
        aggregation_group_type_index: 0,
      });
      const r = evaluateOne(flag, "person", {
        groups: { organization: v.identifier_source.json_group_key },
        groupTypeMapping: { "0": "organization" },
      });
      expect(r.enabled, what).toBe(check.included);
    } else {
      expect(inRollout(key, v.identifier, check.rollout_percentage), `${what} (inRollout)`).toBe(check.included);
      const r = evaluateOne(
        oneFlag(key, { groups: [{ properties: [], rollout_percentage: check.rollout_percentage }] }),
        v.identifier,
      );
      expect(r.enabled, `${what} (evaluateFlags)`).toBe(check.included);
    }
    expect(check.threshold, `${what}: corpus threshold is pct/100`).toBe(check.rollout_percentage / 100);
  }

  for (const check of v.holdout_checks ?? []) {
    const flag = oneFlag("checkout-experiment", {
      groups: [{ properties: [], rollout_percentage: 100 }],
      holdout: { id: 7, exclusion_percentage: check.exclusion_percentage },
    });
    const r = evaluateOne(flag, v.identifier);
    const what = `${v.id}: holdout ${check.exclusion_percentage}%`;
    expect(
      r.variant === "holdout-7" && r.reason.code === "holdout_condition_value",
      `${what}: ${JSON.stringify(r.reason)} ${r.variant}`,
    ).toBe(check.member);
  }

  if (v.variant_check) {
    const flag = oneFlag(flagKeyOf(v.prefix), {
      groups: [{ properties: [], rollout_percentage: 100 }],
      multivariate: { variants: v.variant_check.variants },
    });
    const r = evaluateOne(flag, v.identifier);
    expect(r.enabled).toBe(true);
    expect(r.variant, `${v.id}: variant`).toBe(v.variant_check.selected);
  }

  // Request level: what /flags hashes for an identifier it is sent.
  if (v.identifier_before_truncation !== undefined) await pinThroughFlags(v, v.identifier_before_truncation);
  else if ([...v.identifier].some((ch) => ch.codePointAt(0)! > 0x7f)) await pinThroughFlags(v, v.identifier);
  if (v.identifier_source) {
    const key = flagKeyOf(v.prefix);
    for (const check of v.rollout_checks ?? []) {
      const included = await includedThroughFlags(
        key,
        check.rollout_percentage,
        { distinct_id: "person", groups: { organization: v.identifier_source.json_group_key } },
        "organization",
      );
      expect(included, `${v.id}: /flags with groups {organization: 42} at ${check.rollout_percentage}%`).toBe(
        check.included,
      );
    }
  }
}

function threshold(t: ThresholdVector) {
  expect(t.threshold, `${t.id}: corpus threshold is pct/100`).toBe(t.rollout_percentage / 100);
  expect(hashWithin(t.hash01, t.rollout_percentage), `${t.id}: hash01 ${t.hash01} at ${t.rollout_percentage}%`).toBe(
    t.included,
  );
  // 100% includes without hashing: any identifier is in.
  if (t.short_circuit) expect(inRollout("beta-search", "user-17", t.rollout_percentage), `${t.id}: 100%`).toBe(true);
}

function variantRow(v: VariantVector) {
  expect(variantAt(v.hash01, v.variants), `${v.id}: hash01 ${v.hash01}`).toBe(v.selected);
  // `selected: null` is version 1's "no variant": the flag is boolean true.
  if (v.selected === null) expect(v.v1_result).toBe("no_variant_boolean_true");
}

const checkoutLayout = evaluationCorpus.cases.find((c) => c.id === "v1.multivariate.variant_from_hash_control")!
  .definitions.flags[0];

function parity(p: SeedParity) {
  if (p.divergence === "final_variant_fallback") {
    // hash01 1.0 on the flag's stored variants: version 1 selects no variant (the flag is boolean true).
    expect(variantAt(p.hash01, checkoutLayout.filters.multivariate!.variants), p.id).toBeNull();
    return;
  }
  expectHash(hashFraction(p.v1_input!), p.hash01, undefined, `${p.id}: hashFraction(v1_input)`);
  const identifier = p.identifier ?? "";
  if (p.v1_input!.startsWith("holdout-"))
    expectHash(holdoutHash(identifier), p.hash01, undefined, `${p.id}: holdoutHash`);
  else if (p.divergence === "empty_identifier") {
    // hash01 is the prefix-alone arithmetic; version 1's rollout uses 0.0 and includes at 0%.
    expect(flagHash(p.flag_key, identifier, p.salt)).toBe(0);
    expect(evaluateOne(oneFlag(p.flag_key, { groups: [{ properties: [], rollout_percentage: 0 }] }), "").enabled).toBe(
      true,
    );
  } else expectHash(flagHash(p.flag_key, identifier, p.salt), p.hash01, undefined, `${p.id}: flagHash`);
}

conformance({ name: "PostHog flags contract corpus (hash_sha1_60_v1.json)", version: CONTRACT_VERSION }, () => {
  beforeAll(assertIntact);
  const rows: Array<{ id: string; run: () => Promise<void> | void }> = [
    ...hashCorpus.vectors.map((v) => ({ id: v.id, run: () => vector(v) })),
    ...hashCorpus.threshold_vectors.map((t) => ({ id: t.id, run: () => threshold(t) })),
    ...hashCorpus.variant_vectors.map((v) => ({ id: v.id, run: () => variantRow(v) })),
    ...hashCorpus.seed_parity.map((p) => ({ id: p.id, run: () => parity(p) })),
  ];
  checkedCaseIds(
    "corpus/hash_sha1_60_v1.json",
    rows.map((r) => r.id),
  );
  for (const row of rows) agrees(row.id, row.run);
});
