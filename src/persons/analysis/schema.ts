import { z } from "@hono/zod-openapi";

/**
 * Documentation schemas for the analysis drill-downs. The parameters are PostHog's insight filter
 * (strings, JSON lists as JSON text); the service parses and validates them from the query merged
 * with the JSON body, so unknown keys pass through here.
 */
const text = (description: string) => z.string().optional().openapi({ description });

const commonFilter = {
  events: text(
    'JSON list of event entities `[{"id": "<event>", "type": "events", "order": 0, "properties": [...]}]`. Actions are not supported.',
  ),
  date_from: text(
    "Absolute (`2024-01-31`, ISO 8601) or relative (`-7d`, `-1w`, `-1m`, `dStart`, `mStart`, `yStart`, `all`). Default `-7d`. Project time zone.",
  ),
  date_to: text("Absolute or relative; a date covers the whole day. Default: end of today."),
  properties: text("JSON property filters applied to every event (event and person properties)."),
  limit: text("Page size (default 100, at most 10000)."),
  offset: text("Rows to skip (default 0)."),
};

const funnelFilter = {
  ...commonFilter,
  funnel_window_interval: text("Conversion window length (default 14), measured from step 1."),
  funnel_window_interval_unit: text("second | minute | hour | day (default) | week | month (30 days)."),
  funnel_order_type: text("ordered (default) | strict | unordered."),
  breakdown: text("Event or person property name (or a JSON list of one)."),
  breakdown_type: text("event (default) | person."),
  breakdown_attribution_type: text("first_touch (default) | last_touch."),
  funnel_step_breakdown: text('Only persons with this breakdown value (`""` = no value).'),
};

export const FunnelQuery = z.object({
  ...funnelFilter,
  funnel_step: text("N: persons who reached step N; -N: persons who reached step N-1 but not step N. Required."),
});

export const CorrelationQuery = z.object({
  ...funnelFilter,
  funnel_correlation_person_entity: text("JSON event entity: persons who did this event during their funnel attempt."),
  funnel_correlation_person_converted: text(
    "true: persons who completed the funnel; false: who dropped off; absent: both.",
  ),
  funnel_correlation_property_values: text("JSON person property filters: persons with these property values."),
  funnel_correlation_person_limit: text("Page size (default 100)."),
  funnel_correlation_person_offset: text("Rows to skip (default 0)."),
  include_correlation: text("true: also return the correlation table under `correlation` ({events, skewed})."),
  funnel_correlation_type: text("Correlation table kind: events (default) | properties."),
  funnel_correlation_names: text(
    "Properties correlation: JSON list of person property names (`$all` = every property).",
  ),
  funnel_correlation_exclude_names: text("Properties correlation: JSON list of property names to leave out."),
  funnel_correlation_exclude_event_names: text("Events correlation: JSON list of event names to leave out."),
});

export const LifecycleQuery = z.object({
  ...commonFilter,
  target_date: text("The period to drill into (a date or relative date). Required."),
  lifecycle_type: text("new | returning | resurrecting | dormant. Required."),
  interval: text("hour | day (default) | week | month."),
});

export const StickinessQuery = z.object({
  ...commonFilter,
  entity_id: text(
    "The event name; looked up in `events` first (for its properties). Required unless entity_type=events (every event).",
  ),
  entity_type: text("events (actions are not supported). Needed when entity_id is not in `events`."),
  entity_order: text("Index of the entity in `events` (wins over entity_id)."),
  stickiness_days: text("N: persons active in exactly N intervals of the range. Required."),
  interval: text("hour | day (default) | week | month."),
});

export const FilterBody = z.record(z.string(), z.unknown()).openapi("AnalysisFilterBody", {
  description: "The same parameters as the query string, as JSON (lists and filters as JSON values). Body values win.",
});
