import type { Interval, WeekStart } from "../lib/time/zone";

/**
 * The questions the analytics store answers, engine-neutral: the persons analysis parses a
 * request into one of these (src/persons/analysis/), the store's engine answers it (src/analytics/d1/).
 * Times are ISO 8601 UTC strings, already resolved in the project's time zone by the caller.
 * Property filters travel as PostHog's JSON (a list or a `{type, values}` group); each engine
 * parses them with src/shared/filters, so a bad filter is the same 400 on every engine.
 */

/** An event entity (a funnel step or a series): events only, since edgehog has no actions. */
export interface EventEntity {
  /** The event name; null = every event. */
  event: string | null;
  order: number;
  properties: unknown;
  /**
   * Funnel steps only (PostHog's first_time_for_user math): the step can only be done by the person's
   * first event of its name of all time until the funnel's end, which must pass its filters (`any`),
   * or by their first event of its name passing its filters (`matching`, the `_with_filters` variant).
   */
  firstTime?: "any" | "matching";
}

export type FunnelOrder = "ordered" | "strict" | "unordered";

/**
 * A breakdown by one property (`breakdown=$browser`) or by several at once
 * (`breakdown=["$browser","$browser_version"]`, a list breakdown: the value is the list of the
 * properties' values, taken together from one event).
 */
export interface FunnelBreakdown {
  keys: string[];
  list: boolean;
  type: "event" | "person";
  attribution: FunnelAttribution;
}

/**
 * Which value a person's funnel is broken down by (PostHog's breakdownAttributionType; an event's value
 * is its properties' texts, '' where missing):
 * - `first_touch` / `last_touch`: one value per person, from their first (last) funnel event that has it;
 * - `all_events`: a funnel per value the person's funnel events have, each over only the events with
 *   that value (steps, strictness and exclusions alike), the person counted under each value;
 * - `step` (0-based `step`): a funnel per value the person's events of that step have (their
 *   furthest-step value), over all their events except that the step can only be done by an event
 *   with the value; persons with no event of the step are not in the funnel. Unordered funnels allow
 *   step 0 only: an attempt must begin with an event of the value, and every funnel event's value counts.
 * Event breakdowns only (a person breakdown has one value per person).
 */
export type FunnelAttribution =
  { kind: "first_touch" } | { kind: "last_touch" } | { kind: "all_events" } | { kind: "step"; step: number };

/**
 * A list breakdown's value for a person none of whose events (or properties) has any of its values:
 * one empty text per property, as PostHog defaults it (`['']`, `['', '']`, ...).
 */
export const noBreakdownValue = (bd: FunnelBreakdown): string[] => bd.keys.map(() => "");

/** The most steps a funnel may have (ClickHouse packs an event's steps into 20 bits). */
export const MAX_FUNNEL_STEPS = 20;

/** PostHog's default conversion window: 14 days. */
export const DEFAULT_FUNNEL_WINDOW_DAYS = 14;

/** Seconds per conversion window unit, as PostHog's DATERANGE_MAP (a month is 31 days). */
export const FUNNEL_WINDOW_UNITS = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86_400,
  week: 604_800,
  month: 2_678_400,
} as const;
export type FunnelWindowUnit = keyof typeof FUNNEL_WINDOW_UNITS;

/**
 * A funnel exclusion: an attempt during which the person did `entity` after reaching step `from`
 * and before reaching step `to` (0-based), inside its conversion window, is excluded, and a person
 * whose best attempt is excluded is not in the funnel at all (PostHog's UDF: the excluded attempt
 * still counts one step further than where the exclusion caught it, and a clean attempt reaching
 * as far wins over it). In an unordered funnel (whose exclusions span every step) an exclusion event
 * only ends the attempts begun before it: their steps must be done by then.
 */
export interface FunnelExclusion {
  entity: EventEntity;
  from: number;
  to: number;
}

/** A funnel: each person's best attempt at the steps within the conversion window. */
export interface FunnelSpec {
  projectId: number;
  steps: EventEntity[];
  from: string;
  to: string;
  windowSeconds: number;
  order: FunnelOrder;
  properties: unknown;
  breakdown?: FunnelBreakdown;
  exclusions?: FunnelExclusion[];
}

/** Which rows of the answer to return, in person id order: `limit` rows from `offset`. */
export interface RowWindow {
  limit: number;
  offset: number;
}

/**
 * The persons of one funnel bucket: those whose furthest step is one of `customSteps`, or, by a
 * `funnel_step` selector, those who reached step N or further (N > 0) or reached step -N-1 but not
 * step -N (N < 0); optionally only those with one breakdown value (compared as flattened lists).
 */
export interface FunnelActorsQuery {
  funnel: FunnelSpec;
  bucket: { customSteps: number[] } | { step: number };
  breakdownValue?: string[];
  /** Funnel trends: the bucket within one entrance period (FunnelTrendsQuery's attempts of that period). */
  entrance?: { periodStarts: string[]; period: number };
  rows: RowWindow;
}

/**
 * A funnel's steps counted (PostHog's steps view), per breakdown value: the values ranked by how
 * many persons finished at the last step, then at the one before, and so on (then by value), the
 * first `breakdownLimit` kept and the rest counted together as PostHog's "Other" (`'Other'`, or
 * `['Other']` for a list breakdown). Conversion times are seconds between a person's consecutive
 * steps of their best attempt, over the persons who reached the step, zero times left out (as
 * PostHog's `timings[i] > 0`); the median interpolates between the two middle times.
 */
export interface FunnelStepsQuery {
  funnel: FunnelSpec;
  breakdownLimit: number;
}

/** One breakdown value's steps (the only row without a breakdown), in rank order. */
export interface FunnelStepsRow {
  /** The value (a list breakdown's list); null without a breakdown. */
  breakdown: string | string[] | null;
  /** Persons whose furthest step is step k + 1 (index k). */
  furthest: number[];
  /** Per step (index k ≥ 1; index 0 is null), the mean and median seconds from step k to step k + 1. */
  averageSeconds: (number | null)[];
  medianSeconds: (number | null)[];
}

/**
 * The seconds from step `fromStep` to step `toStep` (0-based) of each person who reached `toStep`
 * (PostHog's time to convert), binned as PostHog bins them: `binCount` bins (1 to 90; without it, the
 * cube root of the persons rounded up, 1 to 60) from the floor of the least time, each as wide as the
 * span to the ceiling of the greatest divided by the count, rounded up (60 s when that is 0), plus one
 * more bin, which only a time exactly at its start reaches.
 */
export interface FunnelConversionQuery {
  funnel: FunnelSpec;
  fromStep: number;
  toStep: number;
  binCount?: number;
}

export interface FunnelConversionTimes {
  averageSeconds: number | null;
  medianSeconds: number | null;
  /** `[bin start in seconds, persons]`, in order. */
  bins: [number, number][];
}

/**
 * PostHog's funnel trends: for each person and each entrance period (`periodStarts`, ISO 8601 UTC,
 * in order; a period runs to the next start, the last to the funnel's end), their best attempt among
 * those whose first step is in the period; they entered in that period when it reached step
 * `fromStep` (0-based), and converted when it reached the funnel's last step (the caller cuts the
 * steps at PostHog's `funnelToStep`). With an event breakdown by first or last touch, the person
 * counts under every value their funnel events have (PostHog's funnel trends compute the funnel once
 * per such value); other breakdowns as FunnelAttribution says.
 */
export interface FunnelTrendsQuery {
  funnel: FunnelSpec;
  periodStarts: string[];
  fromStep: number;
}

/** Persons who entered and who converted, per entrance period (0-based into periodStarts); no row where none entered. */
export interface FunnelTrendsRow {
  period: number;
  /** The breakdown value (a list breakdown's list); absent without a breakdown. */
  breakdown?: string | string[];
  entered: number;
  converted: number;
}

/** The contingency counts behind a funnel's correlation table (events done during the attempt, or person property values). */
export type CorrelationCountsQuery =
  { type: "events"; excludeEventNames: string[] } | { type: "properties"; names: string[]; excludeNames: string[] };

/** One row of correlation counts: persons who converted (`s`) and dropped off (`f`). */
export interface CorrelationCount {
  name: string;
  s: number;
  f: number;
}

/** The name of the counts row that totals the funnel's persons. */
export const CORRELATION_TOTAL = "\u0000total";

/**
 * The funnel's persons (converted, dropped off, or both when `converted` is absent) who did
 * `entity` during their attempt and whose person properties match `personProperties`; with
 * `counts`, the correlation counts of the same funnel too.
 */
export interface CorrelationQuery {
  funnel: FunnelSpec;
  converted?: boolean;
  entity?: EventEntity & { event: string };
  personProperties?: unknown;
  rows: RowWindow;
  counts?: CorrelationCountsQuery;
}

export interface CorrelationAnswer {
  personIds: number[];
  counts?: CorrelationCount[];
}

export const LIFECYCLE_TYPES = ["new", "returning", "resurrecting", "dormant"] as const;
export type LifecycleType = (typeof LIFECYCLE_TYPES)[number];

/**
 * How a range was cut into periods: local `interval`s in `timezone` (weeks from `weekStart`) whose
 * starts, uncut, are `starts` (UTC ms). Engines with zone functions of their own (ClickHouse) find an
 * event's period from these instead of from the UTC bounds.
 */
export interface Bucketing {
  interval: Interval;
  timezone: string;
  weekStart: WeekStart;
  starts: number[];
}

/**
 * PostHog's lifecycle (insights/lifecycle/lifecycle_query_runner.py) over `periods`: whole local
 * intervals, `[start, end)` ISO 8601 UTC, in order: the one before the first bucket, then the
 * buckets. A person's status in a period, from the periods they did `series` in:
 * - new: active in it, it is their first active period, and they were created in it;
 * - returning: active in it and in the period before;
 * - resurrecting: active in it, not in the period before, and not new;
 * - dormant: active in the period before, not in it.
 * Period 0 only tells the next one's status. One engine statement decides the statuses; the counts
 * and the persons drill-down both read it, so they agree.
 */
export interface LifecycleQuestion {
  projectId: number;
  series: EventEntity;
  properties: unknown;
  periods: [string, string][];
  bucketing: Bucketing;
}

/** How many persons had `status` in period `period` (1-based into the question's periods: period 0 has none). */
export interface LifecycleCount {
  period: number;
  status: LifecycleType;
  persons: number;
}

/** The persons of a lifecycle question with `status` in `period` (either absent: any status, any period of the range). */
export interface LifecycleActorsQuery {
  question: LifecycleQuestion;
  period?: number;
  status?: LifecycleType;
  rows: RowWindow;
}

/** How a person's events in a stickiness unit must number for the unit to count (PostHog's stickinessCriteria). */
export type CountOperator = "gte" | "lte" | "exact";
/** Each operator's SQL comparison (the same in SQLite and ClickHouse). */
export const COUNT_OPERATORS: Record<CountOperator, string> = { gte: ">=", lte: "<=", exact: "=" };

/**
 * PostHog's stickiness (insights/stickiness_query_runner.py): for each person, the number of
 * `windows` (`[start, end)` ISO 8601 UTC, in order, not overlapping) in which they did `entity`
 * (with `criteria`, in which their matching events number `operator` `value`; else at least one).
 * How the windows were cut, for engines with zone functions of their own: the range's local
 * `interval`s in `timezone` (weeks from `weekStart`), the first and last cut to the range; or with
 * `intervalCount`, units of that many intervals counted back from the range's end (the earliest cut
 * to the range's start).
 */
export interface StickinessQuestion {
  projectId: number;
  entity: EventEntity;
  properties: unknown;
  windows: [string, string][];
  bucketing: { interval: Interval; timezone: string; weekStart: WeekStart; intervalCount?: number };
  criteria?: { operator: CountOperator; value: number };
}

/** How many persons were active in exactly `periods` windows. */
export interface StickinessCount {
  periods: number;
  persons: number;
}

/** The persons whose number of active windows is `operator` (default exact) `activePeriods`. */
export interface StickinessActorsQuery {
  question: StickinessQuestion;
  activePeriods: number;
  operator?: CountOperator;
  rows: RowWindow;
}

/**
 * PostHog's retention (insights/retention/, calendar mode): cohorts are the `periods` (whole local
 * intervals, `[start, end)` ISO 8601 UTC, in order; `bucketing` says how they were cut). A person
 * is in cohort i when they did `target` in period i; with `first`, only in the period of their first
 * `target` event of all time: the first meeting the target's filters (`matching`, PostHog's
 * retention_first_time), or the first of the target's name, if it meets them (`ever`,
 * retention_first_ever_occurrence). They count at k (1 ≤ k < `lookahead`) when they did `returning`
 * in period i + k (at least `minimumOccurrences` times). `properties` filter every event read. With
 * a breakdown, each person's events are split by their value (an event's, or the person's), missing
 * values being the empty text, and retention is computed within each value.
 */
export interface RetentionQuestion {
  projectId: number;
  target: EventEntity;
  returning: EventEntity;
  properties: unknown;
  periods: [string, string][];
  bucketing: Bucketing;
  lookahead: number;
  first?: "matching" | "ever";
  minimumOccurrences?: number;
  breakdown?: { key: string; type: "event" | "person" };
}

/**
 * Persons per cohort (0-based), breakdown value and interval k: with `last`, those whose last
 * return is at k (0: none), from which rolling retention sums; else those there at k (k = 0: the
 * cohort). No row where there are none.
 */
export interface RetentionCount {
  cohort: number;
  k: number;
  persons: number;
  breakdown?: string;
}

/**
 * The persons of the cohort starting in period `start` (or of any), within one breakdown value when
 * given: who is counted at 0. (Not named "cohort": a question naming cohorts loads cohort filters.)
 * In person id order, or with `byAppearances` by their number of appearances (most first), then id.
 */
export interface RetentionActorsQuery {
  question: RetentionQuestion;
  start?: number;
  breakdownValue?: string;
  byAppearances?: boolean;
  rows: RowWindow;
}

/** A person of a retention cohort and the intervals k they are counted at (0 first; of any cohort, every cohort's). */
export interface RetentionActor {
  personId: number;
  appearances: number[];
}

/** A value of a query's row, as the engine returns it. */
export type Cell = string | number | boolean | null;

/** Rows of a query in PostHog's HogQL response form: row arrays in column order, plus ClickHouse-style types. */
export interface QueryRows {
  columns: string[];
  types: [string, string][];
  results: Cell[][];
}

/** The engines an analytics store runs on: D1 (SQLite), the embedded default, or ClickHouse. */
export type AnalyticsEngine = "d1" | "clickhouse";

/**
 * A HogQL query compiled for one engine (src/hogql/ for D1, src/hogql/clickhouse/), as a saved
 * version's plan holds it. Its parameters: the project, each variable, then LIMIT and OFFSET (D1:
 * `?1`, `?2`.., `?n+2`, `?n+3`; ClickHouse: `{team_id}`, `{var_<name>}`, `{limit}`, `{offset}`,
 * and `{timezone}`).
 */
export interface HogQLStatement {
  sql: string;
  /** The HogQL variable names the SQL binds, in order. */
  variables: string[];
  /** Variables compared with IN: a list value (a scalar is a one-element list). */
  lists: string[];
  /** ClickHouse: each variable's parameter type, e.g. `Nullable(String)`. */
  variableParams?: Record<string, string>;
}

/** One run of a HogQL statement: the values bound to its parameters. */
export interface HogQLRun {
  projectId: number;
  /** The project's IANA time zone (ClickHouse reads timestamps in it; SQLite has no zones). */
  timezone: string;
  /** The variables' values by name (the request's, else the saved ones); a missing one binds NULL. */
  values: Record<string, unknown>;
  limit: number;
  offset: number;
}

/**
 * What a trends series aggregates in each bucket (PostHog's math, src/insights/trends/):
 * - `events`: matching events;
 * - `actors`: distinct persons (an event stored without a person counts its distinct id as one);
 *   with `firstBucketOnly`, each actor only in the first bucket it appears in (cumulative unique users);
 * - `sessions`: distinct `$session_id`s (events without one count together as the session '', as PostHog's column);
 * - `property`: an aggregate of a numeric event property (non-numeric values ignored; no values = 0);
 *   `quantile` interpolates linearly between the nearest values (ClickHouse's `quantile` on small sets);
 * - `firstTime`: persons whose first event of the series' name ever falls in the bucket and passes the
 *   filters (`first_time_for_user`); with `matchingFilters`, whose first event passing the filters
 *   ever falls in the bucket (`first_matching_event_for_user`).
 */
export type TrendsAggregate =
  | { kind: "events" }
  | { kind: "actors"; firstBucketOnly?: boolean }
  | { kind: "sessions" }
  | { kind: "property"; property: string; fn: "sum" | "avg" | "min" | "max" | "quantile"; level?: number }
  | { kind: "firstTime"; matchingFilters?: boolean };

/** A trends breakdown: by one or several properties of the event or the person, top `limit` values kept. */
export interface TrendsBreakdown {
  keys: string[];
  type: "event" | "person";
  limit: number;
  /** URL values without their trailing `/`, `?` and `#` (`/` when nothing else is left), as PostHog's breakdown_normalize_url. */
  normalizeUrl?: boolean;
  /**
   * The values already ranked and kept (a previous answer's): these are answered, and every other
   * value's events are aggregated together as one "other" (no ranking, no limit), which is how an
   * aggregate that does not add up across values (distinct users, averages) gets its "other".
   */
  shown?: (string | null)[][];
}

/**
 * One trends series over a range's buckets: the aggregate of the events of each window (`windows[i]`,
 * `[start, end)` ISO 8601 UTC, in order, not overlapping: the buckets, the first and last cut to the
 * range, or one window over the whole range). Engines with zone functions may find an event's window
 * from `bucketing` instead (the same periods).
 */
export interface TrendsQuestion {
  projectId: number;
  series: EventEntity;
  properties: unknown;
  aggregate: TrendsAggregate;
  windows: [string, string][];
  /** How the windows were cut (the periods, the first and last cut to the range). */
  bucketing?: Bucketing;
  /**
   * Weekly or monthly active users (`actors` only): bucket i counts the distinct actors of windows
   * i to i + rolling − 1, the `rolling` periods ending with it; the windows are then the buckets'
   * periods preceded by rolling − 1 earlier ones, and there are windows − rolling + 1 buckets.
   */
  rolling?: number;
  breakdown?: TrendsBreakdown;
}

/**
 * One value of the answer: the aggregate of bucket `bucket` (an index into `windows`) for one
 * breakdown value (one text or null per key; absent without a breakdown). Breakdown values past the
 * `limit` (ranked by their total over the buckets, largest first, values before null) are summed into
 * rows with `other: true`. Buckets without events have no row.
 */
export interface TrendsRow {
  bucket: number;
  value: number;
  breakdown?: (string | null)[];
  other?: boolean;
}

/**
 * The persons behind one value of a trends series (PostHog's trends actors query): those with a
 * matching event in the windows of bucket `bucket` (with `rolling`, the windows bucket to bucket +
 * rolling − 1; without a bucket, every window), within one breakdown value (`is`: one text or null
 * per key) or outside a set of them (`notIn`: the "other" of a ranked breakdown). For `firstTime`,
 * those whose first event falls there. Each person with how many matching events they had there
 * (1 for `firstTime`); events without a person are nobody's. Ordered by person id, or with
 * `byEvents` by that count (largest first, then person id); `rows` of them.
 */
export interface TrendsActorsQuery {
  question: TrendsQuestion;
  bucket?: number;
  breakdownValue?: { is: (string | null)[] } | { notIn: (string | null)[][] };
  byEvents?: boolean;
  rows: RowWindow;
}

/** The windows a point's value reads: its bucket's (and for rolling active users, the ones before), or all. */
export function pointWindows({ question, bucket }: TrendsActorsQuery): [string, string][] {
  if (bucket === undefined) return question.windows;
  return question.windows.slice(bucket, bucket + (question.rolling ?? 1));
}

/** A person of an insight's point, with the number of their events that made it (where the insight counts events). */
export interface ActorEvents {
  personId: number;
  events: number;
}

/** An event name of a project and when it was last seen (ISO 8601 UTC). */
export interface EventName {
  name: string;
  lastSeen: string | null;
}

/** The value type PostHog gives a property definition. */
export const PROPERTY_KINDS = ["String", "Numeric", "Boolean", "DateTime"] as const;
export type PropertyKind = (typeof PROPERTY_KINDS)[number];

/** A property key seen on events, the type of its values, and on how many of the sampled events it was. */
export interface PropertyKeySeen {
  key: string;
  kind: PropertyKind | null;
  events: number;
}

/** The property keys of a project's latest `sample` events (of these event names, when given). */
export interface PropertyKeysQuery {
  projectId: number;
  eventNames?: string[];
  sample: number;
}
