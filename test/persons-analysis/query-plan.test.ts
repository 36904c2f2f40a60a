import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { correlationActors } from "../../src/persons/analysis/correlation";
import { funnelActors } from "../../src/persons/analysis/funnel";
import { D1AnalyticsStore } from "../../src/analytics/d1/store";
import { createDb } from "../../src/db/client";
import type { AnalysisContext } from "../../src/persons/analysis/context";
import { lifecycleActors } from "../../src/persons/analysis/lifecycle";
import { mapD1Error } from "../../src/analytics/d1/run";
import { stickinessActors } from "../../src/persons/analysis/stickiness";
import { call, createProject, envelope } from "../helpers";
import { personWith } from "./fixtures";
import { plansOf as explain, recordingD1 } from "../sql-plans";

/**
 * Runs each view against the real D1 binding, records the analysis statements it prepares (the
 * binding is passed through, not replaced) and checks SQLite's plan for them: events are reached
 * through the project/event or project/person indexes, never by scanning the table.
 */
let projectId: number;

beforeAll(async () => {
  projectId = (await createProject()).id;
  await personWith(projectId, [
    ["A", "2024-01-02T10:00:00Z"],
    ["B", "2024-01-02T11:00:00Z"],
    ["C", "2024-01-02T12:00:00Z"],
  ]);
});

/** An analysis view: funnelActors, correlationActors, lifecycleActors or stickinessActors. */
type View = typeof funnelActors;

/** The plans SQLite makes for the statements `view` prepares to answer `input`. */
async function plansOf(view: View, input: Parameters<View>[1]) {
  const { d1: spy, statements } = recordingD1(/\bevents x\b/);
  const db = createDb(env.DB);
  const ctx: AnalysisContext = {
    projectId,
    timezone: "Europe/Berlin",
    weekStart: 0,
    now: Date.parse("2024-01-31T12:00:00Z"),
    testAccountFilters: [],
    store: new D1AnalyticsStore(spy, db),
    db,
  };
  await view(ctx, input, "http://x/");
  const plans = await explain(statements.filter((s) => !/min\(timestamp\)/.test(s.sql)));
  expect(plans.length).toBeGreaterThan(0);
  return plans.join("\n");
}

const STEPS = JSON.stringify([{ id: "A" }, { id: "B" }, { id: "C" }]);
const noFullScan = (plan: string) => expect(plan).not.toMatch(/SCAN (x|events)\b(?! USING)/);

describe("query plans", () => {
  for (const order of ["ordered", "strict", "unordered"]) {
    it(`${order} funnel seeks events by index`, async () => {
      const plan = await plansOf(funnelActors, {
        events: STEPS,
        funnel_step: "2",
        funnel_order_type: order,
        date_from: "-30d",
        breakdown: "$browser",
      });
      expect(plan).toMatch(/events_project_person_timestamp_idx/);
      expect(plan).toMatch(/events_project_event_timestamp_idx|events_project_timestamp_idx/);
      noFullScan(plan);
      if (order !== "unordered") {
        // Each step lookup and the breakdown run once per attempt (materialized), not once per reference.
        expect(plan.match(/CORRELATED SCALAR SUBQUERY/g)?.length).toBe(3);
      }
    });
  }

  const views: [string, View, Parameters<View>[1], RegExp][] = [
    [
      "correlation",
      correlationActors,
      {
        events: STEPS,
        date_from: "-30d",
        include_correlation: "true",
        funnel_correlation_person_entity: '{"id":"X"}',
      },
      /events_project_person_timestamp_idx/,
    ],
    [
      "lifecycle",
      lifecycleActors,
      { events: '[{"id":"A"}]', target_date: "-3d", lifecycle_type: "dormant", date_from: "-7d" },
      /events_project_event_timestamp_idx/,
    ],
    [
      "stickiness",
      stickinessActors,
      { entity_id: "A", entity_type: "events", stickiness_days: "1", date_from: "-7d" },
      /events_project_event_timestamp_idx/,
    ],
  ];
  it.each(views)("%s seeks events by index", async (_name, view, input, index) => {
    const plan = await plansOf(view, input);
    expect(plan).toMatch(index);
    noFullScan(plan);
  });
});

describe("database limits", () => {
  it("maps D1 time and size failures to clear envelopes", () => {
    const timeout = mapD1Error(new Error("D1_ERROR: Query timed out after 30000ms"));
    expect(timeout).toMatchObject({ status: 504, code: "query_timeout", type: "server_error" });
    const big = mapD1Error(new Error("D1_ERROR: too many SQL variables: SQLITE_ERROR"));
    expect(big).toMatchObject({ status: 400, code: "query_too_complex" });
    const other = new Error("D1_ERROR: no such table: nope");
    expect(mapD1Error(other)).toBe(other);
  });

  it("refuses a funnel that would need too many bound parameters before running it", async () => {
    const filters = (i: number) => Array.from({ length: 5 }, (_, j) => ({ key: `k${j}`, value: `v${i}-${j}` }));
    const steps = JSON.stringify(Array.from({ length: 20 }, (_, i) => ({ id: `step-${i}`, properties: filters(i) })));
    const res = await call(
      `/api/environments/${projectId}/persons/funnel/?funnel_step=1&events=${encodeURIComponent(steps)}`,
    );
    expect(res.status).toBe(400);
    expect(envelope(res)).toMatchObject({ code: "query_too_complex" });
  });
});
