import type { Db } from "../db/client";
import type { Env } from "../env";
import { refreshFlagDefinitions } from "../flags/definitions-cache";
import { ApiError, authenticationFailed, toApiError, validationError } from "../lib/errors";
import { decodeSdkBody } from "../lib/sdk-body";
import type { CapturedEvent } from "../persons/ingest/event";
import { eventSink, ingestEvents } from "../persons/ingest";
import { getProjectByToken, type Project } from "../projects/service";
import { normalizeCapture, type RejectedEvent } from "./normalize";
import { normalizeV1Batch, type V1RequestMeta } from "./normalize-v1";

export interface CaptureResult {
  accepted: number;
  rejected: RejectedEvent[];
}

/**
 * Handles one SDK capture request end to end: decode (to at most `maxDecodedBytes`), authenticate the project token, validate
 * each event (bad ones are reported, good ones kept), then store and process the good ones.
 */
export async function captureRequest(
  env: Env,
  db: Db,
  request: Request,
  maxDecodedBytes: number,
): Promise<CaptureResult> {
  const payload = await payloadOf(request, maxDecodedBytes);
  const { token, events, rejected } = normalizeCapture(
    payload.payload,
    new URL(request.url).searchParams,
    payload.form,
    new Date(),
  );
  if (!token) {
    throw authenticationFailed("API key not provided. You can find your project API key in your project settings.");
  }
  const project = await projectOf(db, token);
  if (!events.length) {
    throw validationError(rejected[0]?.reason ?? "No events in the request.", null, "invalid_payload");
  }
  await store(env, db, project.id, events);
  return { accepted: events.length, rejected };
}

/** A Capture V1 event's answer (PostHog's codes; `details` says why it was not `ok`). */
export interface V1Result {
  result: "ok" | "drop" | "retry";
  details?: string;
}

/**
 * Handles one Capture V1 request (`/i/v1/analytics/events`), its headers already read: every event
 * gets its own result, as `[uuid as sent, result]` in the batch's order. Malformed events are dropped
 * and the rest stored; events that could not be stored this time are `retry`.
 */
export async function captureV1Request(
  env: Env,
  db: Db,
  meta: V1RequestMeta,
  request: Request,
  maxDecodedBytes: number,
): Promise<[string, V1Result][]> {
  const project = await projectOf(db, meta.token);
  const { payload } = await payloadOf(request, maxDecodedBytes);
  const items = normalizeV1Batch(payload, meta, new Date());
  const events = items.flatMap((item) => ("event" in item ? [item.event] : []));
  const stored = await storeForResults(env, db, project.id, events);
  let next = 0;
  return items.map((item) => [item.key, "drop" in item ? { result: "drop", details: item.drop } : stored[next++]]);
}

const OK: V1Result = { result: "ok" };
const NOT_PERSISTED: V1Result = { result: "retry", details: "not_persisted" };

/**
 * Stores the events and says what became of each, in order. An event the store refuses for itself
 * (4xx: a value too large or too deeply nested for D1, too large for the queue, or a person it would
 * grow past that) fails the whole ingest with nothing written, so the batch is then split in halves,
 * stored in order, until the refused events stand alone and are dropped: a few bad events cost a
 * few more ingests, not one per event. A store that is busy or unavailable leaves every event to be
 * retried; a misconfigured deployment is the request's 500.
 */
async function storeForResults(env: Env, db: Db, projectId: number, events: CapturedEvent[]): Promise<V1Result[]> {
  if (!events.length) return [];
  try {
    await store(env, db, projectId, events);
    return events.map(() => OK);
  } catch (err) {
    const failure = toApiError(err);
    if (failure.code === "misconfigured") throw err;
    if (failure.status >= 500) {
      if (!(err instanceof ApiError))
        console.error(`project ${projectId}: storing ${events.length} event(s) failed`, err);
      return events.map(() => NOT_PERSISTED);
    }
    if (events.length === 1) return [{ result: "drop", details: dropReason(failure) }];
    const half = Math.ceil(events.length / 2);
    return [
      ...(await storeForResults(env, db, projectId, events.slice(0, half))),
      ...(await storeForResults(env, db, projectId, events.slice(half))),
    ];
  }
}

/** PostHog's tag for an event its store refuses. */
function dropReason(err: ApiError): string {
  if (err.code === "payload_too_large" || err.code === "query_too_large") return "event_too_big";
  if (err.code === "json_too_deep") return "malformed_event_properties";
  return "rejected";
}

/** Stores and processes accepted events; new group types refresh the flags' cached definitions. */
async function store(env: Env, db: Db, projectId: number, events: CapturedEvent[]) {
  const { groupTypesAdded } = await ingestEvents(db, eventSink(env), projectId, events);
  if (groupTypesAdded) await refreshFlagDefinitions(env, db, projectId);
}

async function payloadOf(request: Request, maxDecodedBytes: number) {
  const decoded = decodeSdkBody(await request.arrayBuffer(), {
    contentType: request.headers.get("content-type"),
    contentEncoding: request.headers.get("content-encoding"),
    maxDecodedBytes,
  });
  if (decoded.payload === undefined) {
    throw validationError(
      "No data found. Make sure to use a POST request when sending the payload in the body of the request.",
      null,
      "no_data",
    );
  }
  return decoded;
}

async function projectOf(db: Db, token: string): Promise<Project> {
  const project = await getProjectByToken(db, token);
  if (!project) {
    throw authenticationFailed("Project API key invalid. You can find your project API key in your project settings.");
  }
  return project;
}
