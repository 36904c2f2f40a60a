import { ApiError } from "../lib/errors";

/** A question too large to answer (too many periods, parameters or terms): a 400 naming what to reduce. */
export const queryTooComplex = (detail: string) => new ApiError(400, "validation_error", "query_too_complex", detail);

/** An analysis query that ran past the database's time limit (either engine's). */
export const queryTimeout = () =>
  new ApiError(
    504,
    "server_error",
    "query_timeout",
    "The analysis query exceeded the database's time limit. Narrow the date range, add filters or use fewer steps.",
  );

/**
 * What a failed query means for the caller, as each engine classifies its own errors
 * (`AnalyticsStore.classifyError`): a deterministic outcome of the query over the data is the
 * caller's 400 with a message safe to show (no internal names); anything else (the database
 * overloaded, unreachable, timed out, a worker-side exception) is ours, a 5xx the client may retry
 * when `retryable`, its detail only in our logs. A deployment whose settings are wrong (its
 * ClickHouse database belongs to another deployment) is `misconfigured`: a 500 whose detail, written
 * for its operator, is shown. Plain data, so it crosses from the materializer Durable Object intact.
 */
export type QueryFailure =
  | { kind: "query"; message: string }
  | { kind: "server"; retryable: boolean; detail: string }
  | { kind: "misconfigured"; detail: string };

/**
 * The deployment's own setup failing the run (lib/errors' `misconfigured`: a ClickHouse database of
 * another deployment, a missing binding), whichever engine ran it: said as it is.
 */
export const misconfiguration = (error: unknown): QueryFailure | undefined =>
  error instanceof ApiError && error.code === "misconfigured"
    ? { kind: "misconfigured", detail: error.detail }
    : undefined;

/** Transient conditions (overload, resets, timeouts, lost connections) of D1, Durable Objects and fetch: worth a retry. */
export const TRANSIENT =
  /overloaded|timed? ?out|timeout|network connection lost|reset|transient|temporarily|too many requests|SQLITE_(BUSY|LOCKED|INTERRUPT)|interrupted|disconnected/i;
