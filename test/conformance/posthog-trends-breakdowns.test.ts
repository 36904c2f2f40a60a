import { expect } from "vitest";
import { createProject } from "../helpers";
import { actorIdSetOf, at, captureJourneys, idRange, insightActorsOk, sorted } from "./analysis-helpers";
import { agrees, conformance, notExpressible, deliberate } from "./ledger";
import { ev, NULL_BREAKDOWN, OTHER_BREAKDOWN, range, trendsResponse } from "./trends-helpers";

/**
 * PostHog's trends breakdown tests beside test_trends.py (posthog/hogql_queries/insights/trends/test/):
 * null, empty and missing values (test_trends_breakdown_empty_null_properties.py), the breakdown
 * limit (test_breakdown_limits.py) and cohort breakdown values (test_breakdown.py), replayed as
 * TrendsQuery through `POST /api/environments/:project_id/query/` (and the persons of a null value as
 * an ActorsQuery over an InsightActorsQuery of it). The limit file tests the query
 * builder directly; where what it asserts shows in the answer (how many values come back before
 * "other"), that answer is asserted instead.
 */

conformance(
  { name: "PostHog trends tests (test_trends_breakdown_empty_null_properties.py)", version: "0cac1f508e" },
  () => {
    const DAY = "2024-01-10T12:00:00Z";
    const TO_JAN_15 = range("2024-01-01", "2024-01-15");

    /** PostHog's ActorsQuery of the test: the persons of one breakdown value on 10 January, most events first. */
    const personsOf = async (projectId: number, query: Record<string, unknown>, breakdown: unknown) =>
      actorIdSetOf(
        await insightActorsOk(
          projectId,
          { kind: "InsightActorsQuery", source: { kind: "TrendsQuery", ...query }, breakdown, day: "2024-01-10" },
          ["actor", "event_count"],
          ["event_count DESC"],
        ),
      );

    // A null, an empty and a missing value are one null sentinel (3), and its persons are those three.
    agrees("test_breakdown_with_null_empty_and_missing_properties", async () => {
      const project = await createProject();
      await captureJourneys(project.api_token, {
        user_with_null: [at("test_event", DAY, { test_property: null })],
        user_with_empty_string: [at("test_event", DAY, { test_property: "" })],
        user_with_missing: [at("test_event", DAY, { some_other_property: "value" })],
        user_with_value: [at("test_event", DAY, { test_property: "actual_value" })],
      });
      const query = {
        series: [ev("test_event")],
        dateRange: TO_JAN_15,
        breakdownFilter: { breakdown: "test_property", breakdown_type: "event" },
      };
      const { results } = await trendsResponse(project.id, query);
      const counts = Object.fromEntries(results.map((r) => [r.breakdown_value, r.count]));
      expect(counts[NULL_BREAKDOWN]).toBe(3);
      expect(counts.actual_value).toBe(1);
      expect(await personsOf(project.id, query, NULL_BREAKDOWN)).toEqual(
        sorted(["user_with_null", "user_with_empty_string", "user_with_missing"]),
      );
    });

    // Two properties, both missing: the value is a list of two null sentinels (1 event), whose one person
    // is user_none_none.
    agrees("test_multiple_breakdown_with_null_empty_and_missing_properties", async () => {
      const project = await createProject();
      await captureJourneys(project.api_token, {
        user_none_none: [at("test_event", DAY, {})],
        user_value_none: [at("test_event", DAY, { prop1: "value1" })],
        user_none_value: [at("test_event", DAY, { prop2: "value2" })],
      });
      const query = {
        series: [ev("test_event")],
        dateRange: TO_JAN_15,
        breakdownFilter: {
          breakdowns: [
            { property: "prop1", type: "event" },
            { property: "prop2", type: "event" },
          ],
        },
      };
      const { results } = await trendsResponse(project.id, query);
      const noneNone = results.find(
        (r) => JSON.stringify(r.breakdown_value) === JSON.stringify([NULL_BREAKDOWN, NULL_BREAKDOWN]),
      );
      expect(noneNone, JSON.stringify(results.map((r) => r.breakdown_value))).toBeDefined();
      expect(noneNone!.count).toBe(1);
      expect(await personsOf(project.id, query, [NULL_BREAKDOWN, NULL_BREAKDOWN])).toEqual(["user_none_none"]);
    });
  },
);

conformance({ name: "PostHog trends tests (test_breakdown_limits.py)", version: "22a390d418" }, () => {
  // `_get_breakdown_limit()` for `breakdown_limit` None (25), 50 (50), at the cap (the cap) and 1000
  // (the cap): asserted on the answer, over 1000 `$browser` values. The cap,
  // MAX_BREAKDOWN_VALUES_LIMIT, is below 1000 (1000 is PostHog's "above_cap" case) but its value is
  // not in the stored sources, so "at_cap" is not checked and "above_cap" asserts only that 1000
  // asked for still folds values into "other".
  deliberate("test_get_breakdown_limit_caps_at_max", "breakdown_limit", async () => {
    const project = await createProject();
    await captureJourneys(project.api_token, {
      someone: idRange("browser_", 0, 1000).map((b) => at("$pageview", "2023-01-02T12:00:00Z", { $browser: b })),
    });
    const query = (breakdown_limit?: number) =>
      trendsResponse(project.id, {
        series: [ev("$pageview")],
        dateRange: range("2023-01-01", "2023-01-07"),
        breakdownFilter: { breakdown: "$browser", breakdown_type: "event", breakdown_limit },
      });
    const isOther = (r: Record<string, any>) => r.breakdown_value === OTHER_BREAKDOWN;
    const shown = (body: { results: Record<string, any>[] }) => body.results.filter((r) => !isOther(r)).length;

    const byDefault = await query();
    expect([shown(byDefault), byDefault.hasMore, isOther(byDefault.results.at(-1)!)]).toEqual([25, true, true]);
    const fifty = await query(50);
    expect([shown(fifty), fifty.hasMore, isOther(fifty.results.at(-1)!)]).toEqual([50, true, true]);
    // PostHog caps the limit (MAX_BREAKDOWN_VALUES_LIMIT, below 1000); edgehog honours it up to 10,000.
    const aboveCap = await query(1000);
    expect([shown(aboveCap), aboveCap.hasMore]).toEqual([1000, false]);
  });

  notExpressible("test_export_context_uses_system_default_not_capped", "the export limit context (CSV exports)");
  notExpressible(
    "test_replace_null_values_transform_includes_left_truncation",
    "unit test of the HogQL expression a breakdown value is read with",
  );
});

conformance({ name: "PostHog trends tests (test_breakdown.py)", version: "aa76b048cc" }, () => {
  notExpressible("test_returns_cohort_id", "unit test of cohort_breakdown_value_to_int (cohort breakdowns)");
  notExpressible(
    "test_non_cohort_id_raises_query_error",
    "unit test of cohort_breakdown_value_to_int (cohort breakdowns)",
  );
});
