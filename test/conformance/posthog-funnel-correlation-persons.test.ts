import { expect } from "vitest";
import { distinctIdsOf, drillDownOk, RECORDINGS_ROW, recordingsOf } from "./analysis-helpers";
import {
  basicFunnelCorrelationWithEvents,
  entity,
  PAGEVIEW_ANALYZED,
  PAGEVIEW_ANALYZED_UPDATED,
  peopleArentReturnedMultipleTimes,
  personExact,
  RECORDED_RANGE,
  recordedSessionProject,
  STRICT_RECORDED_FILTER,
  strictRecordedProject,
} from "./funnel-correlation-scenarios";
import { agrees, conformance, deliberate } from "./ledger";

/**
 * PostHog's posthog/hogql_queries/insights/funnels/test/test_funnel_correlations_persons.py, one case
 * per test method, against `/api/environments/:id/persons/funnel/correlation/`. PostHog's
 * `get_actors(filters, funnelCorrelationPersonConverted, funnelCorrelationPersonEntity=EventsNode(event))`
 * is the filter plus `funnel_correlation_person_converted` and `funnel_correlation_person_entity`
 * (`{"id": event, "type": "events"}`). The setups are in funnel-correlation-scenarios.ts.
 */

const correlation = (projectId: number, params: Record<string, unknown>) =>
  drillDownOk(projectId, "funnel/correlation", params);

conformance(
  { name: "PostHog funnel correlation persons tests (test_funnel_correlations_persons.py)", version: "fd01c9c2a2" },
  () => {
    agrees("test_basic_funnel_correlation_with_events", () => basicFunnelCorrelationWithEvents(correlation));

    agrees("test_people_arent_returned_multiple_times", () => peopleArentReturnedMultipleTimes(correlation));

    deliberate("test_funnel_correlation_on_event_with_recordings", RECORDINGS_ROW, async () => {
      // PostHog answers the replay of session s2 in matched_recordings; edgehog answers `[]`.
      const projectId = await recordedSessionProject(true);
      const range = { ...RECORDED_RANGE, include_recordings: true };
      // Success filter.
      const converted = await correlation(projectId, {
        ...range,
        events: PAGEVIEW_ANALYZED,
        funnel_correlation_type: "events",
        funnel_correlation_person_converted: true,
        funnel_correlation_person_entity: entity("insight loaded"),
      });
      expect(distinctIdsOf(converted)).toEqual(["user_1"]);
      expect(recordingsOf(converted)).toEqual([[]]);
      // Drop off filter.
      const dropped = await correlation(projectId, {
        ...range,
        events: PAGEVIEW_ANALYZED_UPDATED,
        funnel_correlation_type: "events",
        funnel_correlation_person_converted: false,
        funnel_correlation_person_entity: entity("insight loaded"),
      });
      expect(distinctIdsOf(dropped)).toEqual(["user_1"]);
      expect(recordingsOf(dropped)).toEqual([[]]);
    });

    deliberate("test_funnel_correlation_on_properties_with_recordings", RECORDINGS_ROW, async () => {
      // PostHog answers the replay of session s2 in matched_recordings; edgehog answers `[]`.
      const projectId = await recordedSessionProject(false);
      const body = await correlation(projectId, {
        ...RECORDED_RANGE,
        events: PAGEVIEW_ANALYZED,
        include_recordings: true,
        funnel_correlation_type: "properties",
        funnel_correlation_person_converted: true,
        funnel_correlation_property_values: [personExact("foo", "bar")],
      });
      expect(distinctIdsOf(body)).toEqual(["user_1"]);
      expect(recordingsOf(body)).toEqual([[]]);
    });

    deliberate("test_strict_funnel_correlation_with_recordings", RECORDINGS_ROW, async () => {
      // PostHog answers the replays of sessions s2 and s3 in matched_recordings; edgehog answers `[]`.
      const projectId = await strictRecordedProject();
      const filter = { ...STRICT_RECORDED_FILTER, include_recordings: true };
      // Success filter.
      const converted = await correlation(projectId, { ...filter, funnel_correlation_person_converted: true });
      expect(distinctIdsOf(converted)).toEqual(["user_1"]);
      expect(recordingsOf(converted)).toEqual([[]]);
      // Drop off filter (PostHog asserts its first person).
      const dropped = await correlation(projectId, { ...filter, funnel_correlation_person_converted: false });
      expect(distinctIdsOf(dropped)[0]).toEqual("user_2");
      expect(recordingsOf(dropped)[0]).toEqual([]);
    });
  },
);
