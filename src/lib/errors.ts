import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ZodError } from "zod";
import { refusedByD1 } from "./d1";

/** PostHog's error envelope (drf-exceptions-hog): every failure answers in this shape. */
export type ErrorType =
  "validation_error" | "authentication_error" | "invalid_request" | "server_error" | "throttled_error";

export interface ErrorBody {
  type: ErrorType;
  code: string;
  detail: string;
  attr: string | null;
}

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly type: ErrorType,
    readonly code: string,
    readonly detail: string,
    readonly attr: string | null = null,
  ) {
    super(detail);
  }

  /** The same error about a field nested under `prefix` (e.g. `query`: `series__0__math` → `query__series__0__math`). */
  under(prefix: string): ApiError {
    return this.attr === null
      ? this
      : new ApiError(this.status, this.type, this.code, this.detail, `${prefix}__${this.attr}`);
  }

  toBody(): ErrorBody {
    return { type: this.type, code: this.code, detail: this.detail, attr: this.attr };
  }
}

export const validationError = (detail: string, attr: string | null = null, code = "invalid_input") =>
  new ApiError(400, "validation_error", code, detail, attr);

export const notFound = (detail = "Not found.") => new ApiError(404, "invalid_request", "not_found", detail);

export const notAuthenticated = () =>
  new ApiError(401, "authentication_error", "not_authenticated", "Authentication credentials were not provided.");

export const authenticationFailed = (detail: string) =>
  new ApiError(401, "authentication_error", "authentication_failed", detail);

export const permissionDenied = (detail: string) =>
  new ApiError(403, "authentication_error", "permission_denied", detail);

export const methodNotAllowed = (method: string) =>
  new ApiError(405, "invalid_request", "method_not_allowed", `Method "${method}" not allowed.`);

/** Misconfigurations this isolate has logged: each once, not once per request that meets it. */
const loggedMisconfigurations = new Set<string>();

/**
 * The deployment's settings or setup are wrong: a 500 whose detail says which setting and what to do
 * (for its operator; nothing in it is secret). Logged here, once per isolate, so the logs say it
 * without repeating it for every request; the error handler does not log it again.
 */
export function misconfigured(problem: string): ApiError {
  const detail = `This deployment is misconfigured: ${problem}`;
  if (!loggedMisconfigurations.has(detail)) {
    loggedMisconfigurations.add(detail);
    console.error(detail);
  }
  return new ApiError(500, "server_error", "misconfigured", detail);
}

export const conflict = (detail: string) => new ApiError(409, "server_error", "conflict", detail);

export const payloadTooLarge = (limit: number) =>
  new ApiError(413, "invalid_request", "payload_too_large", `Request body exceeds the limit of ${limit} bytes.`);

export const parseError = (detail = "JSON parse error - the request body is not valid JSON.") =>
  new ApiError(400, "invalid_request", "parse_error", detail);

export const unsupportedMediaType = (contentType: string | undefined) =>
  new ApiError(
    415,
    "invalid_request",
    "unsupported_media_type",
    `Unsupported media type "${contentType ?? ""}" in request.`,
  );

/** Ours, its detail only in the logs. */
export const serverError = () => new ApiError(500, "server_error", "error", "A server error occurred.");

/** Ours and passing (the database busy or unreachable): worth the client's retry. */
export const serviceUnavailable = () =>
  new ApiError(
    503,
    "server_error",
    "service_unavailable",
    "The database is temporarily unavailable; retry the request.",
  );

/**
 * D1 refusing a statement for its size: longer than 100 KB, more than 100 bound parameters, a value
 * over 2 MB, a LIKE or GLOB pattern over 50 bytes. Statements grow with what a request sends
 * (filters, their values, the cohorts they name), so this is the request's 400 whatever route ran
 * it; validation keeps most such input out before any statement is built.
 */
const D1_SIZE_LIMIT = /\bSQLITE_TOOBIG\b|too many SQL variables|LIKE or GLOB pattern too complex/;

/**
 * D1's JSON functions refuse a value nested deeper than about 1,000 levels as "malformed JSON"
 * (everything bound is JSON.stringify's output, so depth is the only way to get there): the
 * request's value cannot be stored, a 400 rather than a server error.
 */
const D1_JSON_TOO_DEEP = /\bmalformed JSON\b/;

const jsonTooDeep = () =>
  validationError("A JSON value of the request is nested too deeply to be stored.", null, "json_too_deep");

/** A statement built from the request that D1 refuses for its size. */
const queryTooLarge = () =>
  validationError("The request's filters or values are too large for one database query.", null, "query_too_large");

/** Turns the first Zod issue into PostHog's validation envelope (`attr` joins nested paths with `__`). */
export function fromZodError(error: ZodError): ApiError {
  const issue = error.issues[0];
  const attr = issue.path.length ? issue.path.map(String).join("__") : null;
  const missing = issue.code === "invalid_type" && /received undefined/.test(issue.message);
  if (missing) return validationError("This field is required.", attr, "required");
  return validationError(issue.message, attr);
}

/** Maps anything thrown while handling a request to the envelope; internal messages never reach clients. */
export function toApiError(err: unknown, contentType?: string): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof ZodError) return fromZodError(err);
  if (refusedByD1(err, D1_SIZE_LIMIT)) return queryTooLarge();
  if (refusedByD1(err, D1_JSON_TOO_DEEP)) return jsonTooDeep();
  if (err instanceof HTTPException) {
    if (err.status === 415) return unsupportedMediaType(contentType);
    if (err.status === 413) return payloadTooLarge(0);
    if (err.status === 400 && /JSON/i.test(err.message)) return parseError();
    if (err.status === 401) return notAuthenticated();
    if (err.status === 404) return notFound();
    if (err.status < 500)
      return new ApiError(err.status as ContentfulStatusCode, "invalid_request", "invalid_request", err.message);
  }
  return serverError();
}

export function errorResponse(c: Context, err: ApiError): Response {
  if (err.status === 401) c.header("WWW-Authenticate", "Bearer");
  return c.json(err.toBody(), err.status);
}

export function handleError(err: unknown, c: Context): Response {
  const apiError = toApiError(err, c.req.header("content-type"));
  if (apiError.status >= 500 && apiError.code !== "misconfigured")
    console.error(`request ${c.get("requestId")} failed`, err);
  return errorResponse(c, apiError);
}
