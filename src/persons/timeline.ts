import type { AnalyticsStore } from "../analytics";
import type { PersonKey } from "../analytics/person-events";
import { validationError } from "../lib/errors";
import { relativeDate } from "../shared/filters/dates";
import { isGroup, type FilterGroup, type PropertyFilter } from "../shared/filters";
import { applyPropertyUpdates } from "./ingest/properties";

/** At most this many of the person's events are replayed for one timeline. */
const MAX_EVENTS = 10_000;

export interface TimelineQuery {
  dateFrom?: string;
  dateTo?: string;
  filter?: FilterGroup;
  breakdown?: string;
  breakdownType?: string;
}

/**
 * PostHog's properties timeline: the person's events in range, oldest first, with a new point
 * whenever the values of the "crucial" person properties change. Events here don't carry a snapshot
 * of person properties (ClickHouse's `person_properties`), so the person's properties at each event
 * are rebuilt by replaying the `$set` / `$set_once` / `$unset` of its events from the first one.
 */
export async function propertiesTimeline(
  store: AnalyticsStore,
  projectId: number,
  person: PersonKey,
  query: TimelineQuery,
) {
  const now = new Date();
  const from = query.dateFrom ? relativeDate(query.dateFrom, now) : relativeDate("-7d", now);
  const to = query.dateTo
    ? relativeDate(query.dateTo, now)
    : { ms: now.getTime(), iso: now.toISOString(), dateOnly: false };
  if (!from) throw validationError("date_from is not a date.", "date_from");
  if (!to) throw validationError("date_to is not a date.", "date_to");
  let toMs = to.dateOnly ? to.ms + 86_400_000 - 1 : to.ms;
  if (toMs <= from.ms) toMs = from.ms + 86_400_000;
  const fromIso = new Date(from.ms).toISOString();
  const toIso = new Date(toMs).toISOString();

  const rows = await store.timelineEvents({ projectId, person, from: fromIso, to: toIso, limit: MAX_EVENTS });

  const crucial = crucialKeys(query);
  const state: Record<string, unknown> = {};
  const points: { timestamp: string; properties: Record<string, unknown>; relevant_event_count: number }[] = [];
  let last: string | null = null;
  for (const row of rows) {
    applyPropertyUpdates(state, JSON.parse(row.properties));
    if (!row.inRange) continue;
    const signature = JSON.stringify(crucial.map((k) => state[k] ?? null));
    if (points.length && (crucial.length === 0 || signature === last)) {
      points[points.length - 1].relevant_event_count++;
      continue;
    }
    last = signature;
    points.push({ timestamp: row.timestamp, properties: { ...state }, relevant_event_count: 1 });
  }
  return {
    points,
    crucial_property_keys: crucial,
    effective_date_from: fromIso.replace("Z", "+00:00"),
    effective_date_to: toIso.replace("Z", "+00:00"),
  };
}

function crucialKeys(query: TimelineQuery): string[] {
  const keys = new Set<string>();
  const walk = (node: PropertyFilter | FilterGroup) => {
    if (isGroup(node)) node.values.forEach(walk);
    else if (node.kind === "person") keys.add(node.key);
  };
  if (query.filter) walk(query.filter);
  if (query.breakdown && query.breakdownType === "person") keys.add(query.breakdown);
  return [...keys].sort();
}
