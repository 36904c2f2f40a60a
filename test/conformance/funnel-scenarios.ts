import { expect } from "vitest";
import { createProject } from "../helpers";
import {
  at,
  captureJourneys,
  distinctIdSetOf,
  drillDownOk,
  idRange,
  type JourneyEvent,
  type Journeys,
} from "./analysis-helpers";
import { agrees } from "./ledger";

/**
 * The setup PostHog's three funnel persons test files share (test_funnel_persons.py,
 * test_funnel_strict_persons.py, test_funnel_unordered_persons.py): a three-step funnel over the
 * first week of May 2021 and `_create_sample_data_multiple_dropoffs`, whose journeys each file
 * writes for its own order type; and their way of asking, `funnelPersons` (`agreesOnStep` for the
 * methods that ask one step and compare the persons).
 */
export const MAY_FUNNEL_FILTER = {
  insight: "FUNNELS",
  interval: "day",
  date_from: "2021-05-01 00:00:00",
  date_to: "2021-05-07 00:00:00",
  funnel_window_days: 7,
  events: [
    { id: "step one", order: 0 },
    { id: "step two", order: 1 },
    { id: "step three", order: 2 },
  ],
};

/** `[event, timestamp]` pairs as journey events. */
const journey = (events: [string, string][]): JourneyEvent[] =>
  events.map(([event, timestamp]) => at(event, timestamp));

/**
 * `_create_sample_data_multiple_dropoffs`: user_0..4 do `firstFive`, user_5..14 do `nextTen`,
 * user_15..34 only "step one" on May 1st.
 */
export async function multipleDropoffsProject(firstFive: [string, string][], nextTen: [string, string][]) {
  const project = await createProject();
  const journeys: Journeys = {};
  for (const id of idRange("user_", 0, 5)) journeys[id] = journey(firstFive);
  for (const id of idRange("user_", 5, 15)) journeys[id] = journey(nextTen);
  for (const id of idRange("user_", 15, 35)) journeys[id] = journey([["step one", "2021-05-01T00:00:00Z"]]);
  await captureJourneys(project.api_token, journeys);
  return project.id;
}

/** `get_actors(filters, funnel_step, …)`: the funnel persons route's body for the filter and parameters. */
export const funnelPersons = (projectId: number, params: Record<string, unknown>) =>
  drillDownOk(projectId, "funnel", params);

/** A test method that asks one `funnel_step` of a fresh `project()` and expects exactly the persons `expected`. */
export function agreesOnStep(
  name: string,
  project: () => Promise<number>,
  filter: Record<string, unknown>,
  funnel_step: number,
  expected: string[],
) {
  agrees(name, async () => {
    const body = await funnelPersons(await project(), { ...filter, funnel_step });
    expect(distinctIdSetOf(body)).toEqual(expected);
  });
}
