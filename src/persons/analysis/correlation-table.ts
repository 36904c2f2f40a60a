import { validationError } from "../../lib/errors";
import { attemptEvents, BY_PERSON, type FunnelSpec } from "./funnel-sql";
import { type Input, json, oneOf } from "./params";
import type { Params } from "./sql";

/** PostHog's constants (funnel_correlation_query_runner.py). */
const MIN_PERSON_COUNT = 25;
const MIN_PERSON_PERCENTAGE = 0.02;
const PRIOR_COUNT = 1;
export const TOTAL = "\u0000total";

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

export interface CountRow {
  name: string;
  s: number;
  f: number;
}

/**
 * The contingency counts of a funnel's correlation table, as SQL over the `funnel` CTE: one row
 * per event done during the attempt (or per person property value) with its converted (`s`) and
 * dropped-off (`f`) persons, plus a TOTAL row.
 */
export function correlationCountsSql(spec: FunnelSpec, input: Input, params: Params): string {
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
  const N = params.bind(spec.steps.length);
  const counts = `count(DISTINCT CASE WHEN f.steps = ${N} THEN f.pid END) AS s, count(DISTINCT CASE WHEN f.steps < ${N} THEN f.pid END) AS f`;
  let detail: string;
  if (type === "events") {
    const excluded = params.bindList(stringList(input, "funnel_correlation_exclude_event_names"));
    // One row per (event, person) first, so the counts need no DISTINCT over the whole join.
    detail = `SELECT name, sum(steps = ${N}) AS s, sum(steps < ${N}) AS f FROM (
        SELECT DISTINCT x.event AS name, f.pid, f.steps FROM funnel f JOIN ${BY_PERSON} ON ${attemptEvents(spec, params)}
        AND x.event NOT IN ${excluded}) GROUP BY name`;
  } else {
    const names = stringList(input, "funnel_correlation_names");
    if (!names.length)
      throw validationError(
        "Property correlation expects at least one property name in funnel_correlation_names.",
        "funnel_correlation_names",
      );
    const keys = names.includes("$all") ? "1" : `j.key IN ${params.bindList(names)}`;
    const excluded = params.bindList(stringList(input, "funnel_correlation_exclude_names"));
    const value = `(CASE j.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' THEN '' ELSE CAST(j.value AS TEXT) END)`;
    detail = `SELECT j.key || '::' || ${value} AS name, ${counts}
      FROM funnel f JOIN persons p ON p.id = f.pid JOIN json_each(p.properties) j
      WHERE ${keys} AND j.key NOT IN ${excluded} GROUP BY name`;
  }
  return `${detail} UNION ALL SELECT ${params.bind(TOTAL)} AS name, ${counts} FROM funnel f`;
}

/** Odds ratios with PostHog's prior of 1: ((s + 1) * (F - f + 1)) / ((S - s + 1) * (f + 1)); top 10 each way. */
export function correlationTable(rows: CountRow[]): CorrelationTable {
  const total = rows.find((r) => r.name === TOTAL) ?? { s: 0, f: 0 };
  const S = total.s;
  const F = total.f;
  if (!S || !F) return { events: [], skewed: true };
  const significant = rows.filter(
    (r) => r.name !== TOTAL && r.s + r.f >= Math.min(MIN_PERSON_COUNT, MIN_PERSON_PERCENTAGE * (S + F)),
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
