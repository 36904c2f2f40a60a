import { type QueryFailure, TRANSIENT } from "../analytics/errors";
import { ApiError, serverError, serviceUnavailable, validationError } from "../lib/errors";

/**
 * A call to the endpoint's Durable Object that threw: never the caller's fault. Workers marks
 * transient failures (overload, a reset instance, a lost connection) with `retryable` or `overloaded`.
 */
export function classifyStubError(error: unknown): QueryFailure {
  const flags = (error ?? {}) as { retryable?: unknown; overloaded?: unknown };
  const detail = error instanceof Error ? error.message : String(error);
  return {
    kind: "server",
    retryable: flags.retryable === true || flags.overloaded === true || TRANSIENT.test(detail),
    detail,
  };
}

/** The envelope for a failure: the cleaned message as a 400, or a generic 5xx (its detail logged). */
export function queryFailureError(failure: QueryFailure, context: string): ApiError {
  if (failure.kind === "query")
    return validationError(`Query execution failed: ${failure.message}`, "query", "query_execution_failed");
  if (failure.kind === "misconfigured") return new ApiError(500, "server_error", "misconfigured", failure.detail);
  console.error(`${context}: query failed on the database side`, failure.detail);
  return failure.retryable ? serviceUnavailable() : serverError();
}
