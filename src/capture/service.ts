import type { Db } from "../db/client";
import type { Env } from "../env";
import { refreshFlagDefinitions } from "../flags/definitions-cache";
import { authenticationFailed, validationError } from "../lib/errors";
import { decodeSdkBody } from "../lib/sdk-body";
import { eventSink, ingestEvents } from "../persons/ingest";
import { getProjectByToken } from "../projects/service";
import { normalizeCapture, type RejectedEvent } from "./normalize";

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
  const { payload, form } = decodeSdkBody(await request.arrayBuffer(), {
    contentType: request.headers.get("content-type"),
    contentEncoding: request.headers.get("content-encoding"),
    maxDecodedBytes,
  });
  if (payload === undefined) {
    throw validationError(
      "No data found. Make sure to use a POST request when sending the payload in the body of the request.",
      null,
      "no_data",
    );
  }
  const { token, events, rejected } = normalizeCapture(payload, new URL(request.url).searchParams, form, new Date());
  if (!token) {
    throw authenticationFailed("API key not provided. You can find your project API key in your project settings.");
  }
  const project = await getProjectByToken(db, token);
  if (!project) {
    throw authenticationFailed("Project API key invalid. You can find your project API key in your project settings.");
  }
  if (!events.length) {
    throw validationError(rejected[0]?.reason ?? "No events in the request.", null, "invalid_payload");
  }
  const { groupTypesAdded } = await ingestEvents(db, eventSink(env), project.id, events);
  if (groupTypesAdded) await refreshFlagDefinitions(env, db, project.id);
  return { accepted: events.length, rejected };
}
