import { expect } from "vitest";
import { createProject } from "../helpers";
import { captureJourneys, distinctIdsOf, drillDown, idRange, recordingsOf, sorted } from "./analysis-helpers";
import { agreesOnStep, funnelPersons, MAY_FUNNEL_FILTER, multipleDropoffsProject } from "./funnel-scenarios";
import { agrees, conformance } from "./ledger";

/**
 * PostHog's posthog/hogql_queries/insights/funnels/test/test_funnel_unordered_persons.py, one case
 * per test method, against `/api/environments/:id/persons/funnel/` with `funnel_order_type=unordered`.
 */

const UNORDERED_FILTER = { ...MAY_FUNNEL_FILTER, funnel_order_type: "unordered" };

/** `_create_sample_data_multiple_dropoffs`: user_0..4 do the three steps out of order, user_5..14 two, user_15..34 one. */
const multipleDropoffs = () =>
  multipleDropoffsProject(
    [
      ["step one", "2021-05-01T00:00:00Z"],
      ["step three", "2021-05-03T00:00:00Z"],
      ["step two", "2021-05-05T00:00:00Z"],
    ],
    [
      ["step two", "2021-05-01T00:00:00Z"],
      ["step one", "2021-05-03T00:00:00Z"],
    ],
  );

conformance(
  { name: "PostHog unordered funnel persons tests (test_funnel_unordered_persons.py)", version: "eca0858ad9" },
  () => {
    agrees("test_invalid_steps", async () => {
      // PostHog raises ValueError for each: "Input should be a valid integer", "Funnel steps are
      // 1-indexed, so step 0 doesn't exist", "The first valid drop-off argument for funnelStep is -2".
      const project = await createProject();
      for (const step of ["blah", 0, -1]) {
        const res = await drillDown(project.id, "funnel", { ...UNORDERED_FILTER, funnel_step: step });
        expect(res.status, `funnel_step=${step}: ${res.text}`).toBe(400);
      }
    });

    agreesOnStep("test_first_step", multipleDropoffs, UNORDERED_FILTER, 1, sorted(idRange("user_", 0, 35)));

    agreesOnStep("test_last_step", multipleDropoffs, UNORDERED_FILTER, 3, sorted(idRange("user_", 0, 5)));

    agreesOnStep("test_second_step_dropoff", multipleDropoffs, UNORDERED_FILTER, -2, sorted(idRange("user_", 15, 35)));

    agreesOnStep("test_last_step_dropoff", multipleDropoffs, UNORDERED_FILTER, -3, sorted(idRange("user_", 5, 15)));

    agrees("test_unordered_funnel_does_not_return_recordings", async () => {
      // Frozen at 2021-01-02T00:00:00Z. PostHog also records a replay of session s1, which edgehog
      // cannot store; PostHog's answer is that unordered funnels match no recordings anyway.
      const project = await createProject();
      const s1 = { $session_id: "s1", $window_id: "w1" };
      await captureJourneys(project.api_token, {
        user_1: [
          { event: "step two", timestamp: "2021-01-02T00:00:00Z", properties: s1 },
          { event: "step one", timestamp: "2021-01-03T00:00:00Z", properties: s1 },
        ],
      });
      const filter = { ...UNORDERED_FILTER, date_from: "2021-01-01", date_to: "2021-01-08" };
      const body = await funnelPersons(project.id, { ...filter, funnel_step: 1, include_recordings: true });
      expect(distinctIdsOf(body)).toEqual(["user_1"]);
      expect(recordingsOf(body)).toEqual([[]]);
    });
  },
);
