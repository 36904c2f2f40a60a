import { validationError } from "../../lib/errors";
import { CORRELATION_TOTAL, type CorrelationCount, type CorrelationCountsQuery } from "../../analytics/queries";
import { type Input, json, oneOf } from "./params";

/** PostHog's constants (funnel_correlation_query_runner.py). */
const MIN_PERSON_COUNT = 25;
const MIN_PERSON_PERCENTAGE = 0.02;
const PRIOR_COUNT = 1;

export interface CorrelationRow {
  event: { event: string; properties: Record<string, unknown>; elements: unknown[] };
  success_count: number;
  failure_count: number;
  odds_ratio: number;
  correlation_type: "success" | "failure";
}

export interface CorrelationTable {
  events: CorrelationRow[];
  skewed: boolean;
}

function stringList(input: Input, key: string): string[] {
  const raw = json(input, key);
  if (raw === undefined) return [];
  if (!Array.isArray(raw) || raw.some((v) => typeof v !== "string"))
    throw validationError(`${key} must be a JSON list of names.`, key);
  return raw as string[];
}

/** `funnel_correlation_type` and its names: what the correlation table counts. */
export function parseCorrelationCounts(input: Input): CorrelationCountsQuery {
  const type = oneOf(
    input,
    "funnel_correlation_type",
    ["events", "properties", "event_with_properties"] as const,
    "events",
  );
  if (type === "event_with_properties") {
    throw validationError(
      "funnel_correlation_type event_with_properties is not supported (events and properties only).",
      "funnel_correlation_type",
    );
  }
  if (type === "events") {
    return { type, excludeEventNames: stringList(input, "funnel_correlation_exclude_event_names") };
  }
  const names = stringList(input, "funnel_correlation_names");
  if (!names.length)
    throw validationError(
      "Property correlation expects at least one property name in funnel_correlation_names.",
      "funnel_correlation_names",
    );
  return { type, names, excludeNames: stringList(input, "funnel_correlation_exclude_names") };
}

/** Odds ratios with PostHog's prior of 1: ((s + 1) * (F - f + 1)) / ((S - s + 1) * (f + 1)); top 10 each way. */
export function correlationTable(rows: CorrelationCount[]): CorrelationTable {
  const total = rows.find((r) => r.name === CORRELATION_TOTAL) ?? { s: 0, f: 0 };
  const S = total.s;
  const F = total.f;
  if (!S || !F) return { events: [], skewed: true };
  const significant = rows.filter(
    (r) => r.name !== CORRELATION_TOTAL && r.s + r.f >= Math.min(MIN_PERSON_COUNT, MIN_PERSON_PERCENTAGE * (S + F)),
  );
  const scored: CorrelationRow[] = significant.map((r) => {
    const odds = ((r.s + PRIOR_COUNT) * (F - r.f + PRIOR_COUNT)) / ((S - r.s + PRIOR_COUNT) * (r.f + PRIOR_COUNT));
    return {
      event: { event: r.name, properties: {}, elements: [] },
      success_count: r.s,
      failure_count: r.f,
      odds_ratio: odds,
      correlation_type: odds > 1 ? "success" : "failure",
    };
  });
  const success = scored.filter((r) => r.correlation_type === "success").sort((a, b) => b.odds_ratio - a.odds_ratio);
  const failure = scored.filter((r) => r.correlation_type === "failure").sort((a, b) => a.odds_ratio - b.odds_ratio);
  return { events: [...success.slice(0, 10), ...failure.slice(0, 10)], skewed: S / F > 10 || F / S > 10 };
}
