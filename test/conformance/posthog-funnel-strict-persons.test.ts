import { expect } from "vitest";
import { createProject } from "../helpers";
import { captureJourneys, distinctIdsOf, idRange, RECORDINGS_ROW, recordingsOf, sorted } from "./analysis-helpers";
import { agreesOnStep, funnelPersons, MAY_FUNNEL_FILTER, multipleDropoffsProject } from "./funnel-scenarios";
import { conformance, deliberate } from "./ledger";

/**
 * PostHog's posthog/hogql_queries/insights/funnels/test/test_funnel_strict_persons.py, one case per
 * test method, against `/api/environments/:id/persons/funnel/` with `funnel_order_type=strict`.
 */

const STRICT_FILTER = { ...MAY_FUNNEL_FILTER, funnel_order_type: "strict" };

/**
 * `_create_sample_data_multiple_dropoffs`: user_0..4 do all three steps but with "step fake"
 * between steps one and two (so they stop at step one), user_5..14 do steps one and two, user_15..34 step one.
 */
const multipleDropoffs = () =>
  multipleDropoffsProject(
    [
      ["step one", "2021-05-01T00:00:00Z"],
      ["step fake", "2021-05-02T00:00:00Z"],
      ["step two", "2021-05-03T00:00:00Z"],
      ["step three", "2021-05-05T00:00:00Z"],
    ],
    [
      ["step one", "2021-05-01T00:00:00Z"],
      ["step two", "2021-05-03T00:00:00Z"],
    ],
  );

conformance(
  { name: "PostHog strict funnel persons tests (test_funnel_strict_persons.py)", version: "eca0858ad9" },
  () => {
    agreesOnStep("test_first_step", multipleDropoffs, STRICT_FILTER, 1, sorted(idRange("user_", 0, 35)));

    agreesOnStep("test_second_step", multipleDropoffs, STRICT_FILTER, 2, sorted(idRange("user_", 5, 15)));

    agreesOnStep(
      "test_second_step_dropoff",
      multipleDropoffs,
      STRICT_FILTER,
      -2,
      sorted([...idRange("user_", 0, 5), ...idRange("user_", 15, 35)]),
    );

    agreesOnStep("test_third_step", multipleDropoffs, STRICT_FILTER, 3, []);

    deliberate("test_strict_funnel_person_recordings", RECORDINGS_ROW, async () => {
      // Frozen at 2021-01-02T00:00:00Z. An interrupting event between steps two and three: the person
      // reaches step two. PostHog also records a replay of session s2 (which edgehog cannot store) and
      // answers it in matched_recordings for steps 2 and -3; edgehog answers `[]`.
      const project = await createProject();
      const s1 = { $session_id: "s1", $window_id: "w1" };
      const s2 = { $session_id: "s2", $window_id: "w2" };
      await captureJourneys(project.api_token, {
        user_1: [
          { event: "step one", timestamp: "2021-01-02T00:00:00Z", properties: s1 },
          { event: "step two", timestamp: "2021-01-03T00:00:00Z", properties: s2 },
          { event: "interupting step", timestamp: "2021-01-04T00:00:00Z", properties: s2 },
          { event: "step three", timestamp: "2021-01-05T00:00:00Z", properties: s2 },
        ],
      });
      const filter = { ...STRICT_FILTER, date_from: "2021-01-01", date_to: "2021-01-08" };
      for (const step of [1, 2, -3]) {
        const body = await funnelPersons(project.id, { ...filter, funnel_step: step, include_recordings: true });
        expect(distinctIdsOf(body), `funnel_step=${step}`).toEqual(["user_1"]);
        expect(recordingsOf(body), `funnel_step=${step}`).toEqual([[]]);
      }
    });
  },
);
