import { describe, expect, it } from "vitest";
import { sha1Hex, sha1Top60 } from "../../src/flags/evaluation/sha1";
import { FlagEvaluationError, unavailable } from "../../src/flags/evaluation/errors";
import { evaluateFlags } from "../../src/flags/evaluation/matcher";
import { matchProperty } from "../../src/flags/evaluation/properties";
import type { FlagDefinition } from "../../src/flags/evaluation/types";
import { contextFor } from "./evaluator-context";

const flag = (
  key: string,
  filters: FlagDefinition["filters"],
  extra: Partial<FlagDefinition> = {},
): FlagDefinition => ({
  id: 1,
  key,
  active: true,
  filters,
  ...extra,
});

describe("sync SHA-1", () => {
  it("agrees with crypto.subtle for short and block-boundary inputs", async () => {
    const inputs = [
      "",
      "abc",
      "simple-flag.distinct_id_0",
      "ü→日本",
      "x".repeat(55),
      "y".repeat(56),
      "z".repeat(64),
      "w".repeat(300),
    ];
    for (let i = 0; i < 200; i++) inputs.push(`flag-${i}.user-${i * 7919}variant`);
    for (const input of inputs) {
      const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(input));
      const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
      expect(sha1Hex(input)).toBe(hex);
      // The bucketing value: the first 15 hex digits as a number (one-block and general paths).
      expect(sha1Top60(input)).toBe(Number(BigInt(`0x${hex.slice(0, 15)}`)));
    }
  });
});

describe("reasons and condition_index", () => {
  it("ties move to the later index; out of rollout outranks no match", () => {
    const f = flag("r", {
      groups: [
        { properties: [{ key: "a", type: "person", value: "x" }] },
        { properties: [{ key: "b", type: "person", value: "y" }] },
      ],
    });
    expect(evaluateFlags([f], contextFor("u")).r.reason).toEqual({
      code: "no_condition_match",
      condition_index: 1,
      description: "No matching condition set",
    });
    const g = flag("r", {
      groups: [{ properties: [], rollout_percentage: 0 }, { properties: [{ key: "b", type: "person", value: "y" }] }],
    });
    expect(evaluateFlags([g], contextFor("u")).r.reason.code).toBe("out_of_rollout_bound");
    expect(evaluateFlags([g], contextFor("u")).r.reason.condition_index).toBe(0);
    expect(evaluateFlags([flag("r", { groups: [] })], contextFor("u")).r.reason).toMatchObject({
      code: "no_group_type",
      condition_index: null,
    });
  });

  it("group flags without the group give no_group_type; with it they bucket by group key", () => {
    const f = flag("g", {
      aggregation_group_type_index: 0,
      groups: [{ properties: [{ key: "plan", type: "group", group_type_index: 0, value: "pro" }] }],
    });
    const mapping = { "0": "company" };
    expect(evaluateFlags([f], contextFor("u", {}, { groupTypeMapping: mapping })).g.reason.code).toBe("no_group_type");
    const r = evaluateFlags(
      [f],
      contextFor(
        "u",
        {},
        { groupTypeMapping: mapping, groups: { company: "acme" }, groupProperties: { company: { plan: "pro" } } },
      ),
    ).g;
    expect(r).toMatchObject({
      enabled: true,
      reason: { code: "condition_match", condition_index: 0, description: "Matched condition set 1" },
    });
  });

  it("enrollment, holdout and dependencies", () => {
    const enrolled = flag("beta", {
      feature_enrollment: true,
      groups: [{ rollout_percentage: 0 }],
      payloads: { true: "1" },
    });
    expect(evaluateFlags([enrolled], contextFor("u", { "$feature_enrollment/beta": "true" })).beta).toMatchObject({
      enabled: true,
      reason: { code: "super_condition_value", condition_index: 0 },
      payload: "1",
    });
    expect(evaluateFlags([enrolled], contextFor("u", { "$feature_enrollment/beta": false })).beta.enabled).toBe(false);
    expect(evaluateFlags([enrolled], contextFor("u")).beta.reason.code).toBe("out_of_rollout_bound");

    const held = flag("exp", {
      holdout: { id: 7, exclusion_percentage: 100 },
      groups: [{}],
      payloads: { "holdout-7": "h" },
    });
    expect(evaluateFlags([held], contextFor("u")).exp).toMatchObject({
      enabled: true,
      variant: "holdout-7",
      payload: "h",
      reason: { code: "holdout_condition_value", condition_index: null },
    });

    const base = flag(
      "base",
      {
        groups: [{ properties: [{ key: "plan", type: "person", value: "pro" }] }],
        multivariate: { variants: [{ key: "a", rollout_percentage: 100 }] },
      },
      { id: 2 },
    );
    const dep = flag(
      "dep",
      {
        groups: [
          {
            properties: [
              { key: "base", type: "flag", operator: "flag_evaluates_to", value: "a", dependency_chain: ["base"] },
            ],
          },
        ],
      },
      { id: 3 },
    );
    expect(evaluateFlags([base, dep], contextFor("u", { plan: "pro" })).dep.enabled).toBe(true);
    expect(evaluateFlags([base, dep], contextFor("u", { plan: "free" })).dep.enabled).toBe(false);
    const broken = flag("broken", {
      groups: [
        {
          properties: [{ key: "gone", type: "flag", operator: "flag_evaluates_to", value: true, dependency_chain: [] }],
        },
      ],
    });
    expect(evaluateFlags([broken], contextFor("u")).broken.reason.code).toBe("missing_dependency");
  });

  it("experience continuity buckets by the stored override", () => {
    const f = flag("cont", { groups: [{ rollout_percentage: 50 }] }, { ensure_experience_continuity: true });
    const byOverride = evaluateFlags([f], contextFor("new-id", {}, { hashKeyOverrides: { cont: "anon-1" } })).cont
      .enabled;
    const byAnon = evaluateFlags([f], contextFor("anon-1")).cont.enabled;
    expect(byOverride).toBe(byAnon);
  });

  it("nested, negated and static cohorts", () => {
    const f = flag("c", { groups: [{ properties: [{ key: "id", type: "cohort", value: 1 }] }] });
    const defs = {
      "1": { type: "OR", values: [{ type: "AND", values: [{ key: "id", type: "cohort", value: 2, negation: true }] }] },
      "2": { type: "AND", values: [{ key: "plan", type: "person", value: "free" }] },
    };
    expect(evaluateFlags([f], contextFor("u", { plan: "pro" }, { cohortDefinitions: defs })).c.enabled).toBe(true);
    expect(evaluateFlags([f], contextFor("u", { plan: "free" }, { cohortDefinitions: defs })).c.enabled).toBe(false);
    const s = flag("s", { groups: [{ properties: [{ key: "id", type: "cohort", value: 9 }] }] });
    expect(
      evaluateFlags([s], contextFor("u", {}, { cohorts: { definitions: {}, staticMembership: new Set([9]) } })).s
        .enabled,
    ).toBe(true);
  });
});

describe("dates in the project's time zone", () => {
  it("reads dates without an offset, and relative months, on the project's wall clock", () => {
    const before = { key: "d", type: "person", operator: "is_date_before", value: "2022-05-01" };
    const late = { d: "2022-04-30T23:00:00Z" };
    expect(matchProperty(before, late, new Date())).toBe(true);
    expect(matchProperty(before, late, new Date(), "Europe/Paris")).toBe(false);

    const now = new Date("2022-03-31T23:30:00Z"); // 1 April 01:30 in Paris
    const after = { key: "d", type: "person", operator: "is_date_after", value: "-1m" };
    expect(matchProperty(after, { d: "2022-03-01T00:00:00Z" }, now)).toBe(true);
    expect(matchProperty(after, { d: "2022-03-01T00:00:00Z" }, now, "Europe/Paris")).toBe(false);
    expect(matchProperty(after, { d: "2022-03-01T00:31:00Z" }, now, "Europe/Paris")).toBe(true);
    // An explicit offset wins over the project's zone.
    expect(matchProperty({ ...before, value: "2022-05-01T00:00:00Z" }, late, new Date(), "Europe/Paris")).toBe(true);
  });

  it("is_date_before across a spring-forward gap: a date the project's clocks skip matches nothing", () => {
    // New York jumps from 02:00 EST (07:00Z) to 03:00 EDT on 2024-03-10. PostHog's server reads a date
    // without an offset in the team's zone, and one that never happens there as no date, so the
    // operator is false whatever the person's date (rust/feature-flags, properties/relative_date.rs
    // `naive_to_utc_in_tz` and property_matching.rs `parse_date_string_in_tz`).
    const NY = "America/New_York";
    const inGap = { key: "d", type: "person", operator: "is_date_before", value: "2024-03-10 02:30:00" };
    expect(matchProperty(inGap, { d: "2024-03-10T06:15:00Z" }, new Date(), NY)).toBe(false); // 01:15 EST
    expect(matchProperty(inGap, { d: "2024-03-10T07:45:00Z" }, new Date(), NY)).toBe(false); // 03:45 EDT
    // Either side of the gap a date takes that side's offset: 01:59 EST is 06:59Z, 03:00 EDT is 07:00Z.
    const lastBefore = { ...inGap, value: "2024-03-10 01:59:00" };
    expect(matchProperty(lastBefore, { d: "2024-03-10T06:58:00Z" }, new Date(), NY)).toBe(true);
    expect(matchProperty(lastBefore, { d: "2024-03-10T06:59:00Z" }, new Date(), NY)).toBe(false);
    const firstAfter = { ...inGap, value: "2024-03-10 03:00:00" };
    expect(matchProperty(firstAfter, { d: "2024-03-10T06:59:00Z" }, new Date(), NY)).toBe(true);
    expect(matchProperty(firstAfter, { d: "2024-03-10T07:00:00Z" }, new Date(), NY)).toBe(false);
    // The person's own date is read the same way.
    expect(matchProperty(firstAfter, { d: "2024-03-10 02:30:00" }, new Date(), NY)).toBe(false);
    expect(matchProperty(firstAfter, { d: "2024-03-10 01:30:00" }, new Date(), NY)).toBe(true);
  });
});

describe("stored data that could not be read", () => {
  const onPlan = flag("on-plan", { groups: [{ properties: [{ key: "plan", type: "person", value: "pro" }] }] });
  const onSentCountry = flag("on-country", {
    groups: [{ properties: [{ key: "country", type: "person", value: "DE" }] }],
  });
  const rollout = flag("rollout", { groups: [{ rollout_percentage: 100 }] });
  const sticky = flag("sticky", { groups: [{ rollout_percentage: 100 }] }, { ensure_experience_continuity: true });
  const inStatic = flag("in-static", { groups: [{ properties: [{ key: "id", type: "cohort", value: 7 }] }] });
  const dependent = flag("needs-plan", {
    groups: [
      {
        properties: [
          { key: "on-plan", type: "flag", operator: "flag_evaluates_to", value: true, dependency_chain: ["on-plan"] },
        ],
      },
    ],
  });

  it("fails only the flags that read what is missing, with the error code as the reason", () => {
    const ctx = contextFor("u", { country: "DE" });
    const results = evaluateFlags([onPlan, onSentCountry, rollout, sticky, inStatic, dependent], {
      ...ctx,
      personProperties: unavailable(ctx.personProperties, "database_error"),
      hashKeyOverrides: unavailable({}, "hash_key_override_error"),
      cohorts: {
        ...ctx.cohorts,
        staticMembership: {
          has: () => {
            throw new FlagEvaluationError("database_error");
          },
        } as unknown as Set<number>,
      },
    });
    expect(results["on-plan"]).toMatchObject({
      enabled: false,
      variant: null,
      failed: true,
      reason: { code: "database_error", condition_index: null },
    });
    expect(results["needs-plan"]).toMatchObject({ failed: true, reason: { code: "dependency_failed" } });
    expect(results.sticky).toMatchObject({ failed: true, reason: { code: "hash_key_override_error" } });
    expect(results["in-static"]).toMatchObject({ failed: true, reason: { code: "database_error" } });
    for (const ok of ["on-country", "rollout"]) {
      expect(results[ok].failed).toBeUndefined();
      expect(results[ok].enabled).toBe(true);
    }
  });
});
