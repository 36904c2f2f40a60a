import { authenticationFailed, notAuthenticated, validationError } from "../lib/errors";
import { isObject } from "../lib/json";
import { excerpt, longerThanBytes } from "../lib/text";
import type { CapturedEvent } from "../persons/ingest/event";
import { cleanDistinctId, eventTime, UUID } from "./normalize";

/**
 * Capture V1 (`POST /i/v1/analytics/events`, PostHog's Rust capture service `v1/analytics`): a batch
 * `{created_at, historical_migration?, batch: [...]}` whose events each get their own answer, keyed
 * by uuid. A batch that cannot be answered per event (not a batch, no events, an event without a
 * usable uuid, a uuid twice) is refused whole with a 400; a malformed event is dropped with
 * PostHog's reason tag and the others are stored.
 */

/**
 * One event of the batch, in order: stored as `event` (whose uuid is the canonical form), or dropped
 * for `drop` (PostHog's tag). `key` is the uuid as the SDK sent it: the SDK finds its event's result
 * under that exact text.
 */
export type V1Item = { key: string } & ({ event: CapturedEvent } | { drop: string });

/** What the request's headers say: the project token, and what they tell about the events. */
export interface V1RequestMeta {
  /** The project token, the `Authorization: Bearer` credential. */
  token: string;
  /** When the SDK sent this attempt: the clock skew is measured against it. */
  sentAt: Date | null;
  /** `$lib` and `$lib_version`, which v1 events no longer carry in their properties. */
  lib: { name: string; version: string } | null;
}

type Raw = Record<string, unknown>;

const RFC_3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
/** PostHog's limits on these fields are in bytes. */
const MAX_NAME_BYTES = 200;
const MAX_SDK_INFO_BYTES = 200;

const refuse = (detail: string, code: string, attr: string | null = null) =>
  validationError(`invalid batch: ${detail}`, attr, code);

export function normalizeV1Batch(payload: unknown, meta: V1RequestMeta, now: Date): V1Item[] {
  if (!isObject(payload)) throw refuse("the body must be a JSON object", "request_parsing_error");
  const createdAt = payload.created_at;
  if (typeof createdAt !== "string" || !isRfc3339(createdAt))
    throw refuse(`created_at is not valid RFC 3339: ${describe(createdAt)}`, "invalid_batch", "created_at");
  if (!Array.isArray(payload.batch)) throw refuse("`batch` must be a list of events", "request_parsing_error", "batch");
  if (!payload.batch.length) throw refuse("request batch is empty", "empty_batch", "batch");
  const seen = new Set<string>();
  return payload.batch.map((item: unknown, index) => {
    if (!isObject(item)) throw refuse(`event ${index} is not an object`, "request_parsing_error", "batch");
    const uuid = uuidOf(item.uuid, index);
    if (seen.has(uuid)) throw refuse(`event ${index} repeats uuid ${uuid}`, "duplicate_event_uuid", "uuid");
    seen.add(uuid);
    const checked = checkEvent(item, meta, now, uuid);
    const key = item.uuid as string;
    return typeof checked === "string" ? { key, drop: checked } : { key, event: checked };
  });
}

/** A value quoted in an error message: a string's excerpt, or the kind of value (it may be huge). */
const describe = (value: unknown) =>
  typeof value === "string" ? excerpt(value) : value === null ? "null" : typeof value;

/** The uuid in its canonical form (lowercase, hyphenated), under which the event is stored and de-duplicated. */
function uuidOf(raw: unknown, index: number): string {
  if (typeof raw === "string" && UUID.test(raw)) return raw.toLowerCase();
  const text = typeof raw === "string" ? raw.trim() : "";
  if (!text) throw refuse(`event ${index} has no uuid`, "missing_event_uuid", "uuid");
  // The other forms a UUID parser accepts: 32 digits, braced, or a URN.
  let s = text.toLowerCase().replace(/^urn:uuid:/, "");
  if (s.startsWith("{") && s.endsWith("}")) s = s.slice(1, -1);
  if (/^[0-9a-f]{32}$/.test(s)) s = s.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, "$1-$2-$3-$4-$5");
  if (!UUID.test(s)) throw refuse(`event ${index} has an invalid uuid: ${excerpt(text)}`, "invalid_event_uuid", "uuid");
  return s;
}

/** The event to store, or the tag it is dropped for, checked in PostHog's order. */
function checkEvent(item: Raw, meta: V1RequestMeta, now: Date, uuid: string): CapturedEvent | string {
  const name = item.event;
  if (name === "$performance_event") return "dropped_performance_event";
  if (typeof name !== "string" || !name) return "missing_event_name";
  if (longerThanBytes(name, MAX_NAME_BYTES)) return "event_name_too_long";
  const distinctId = typeof item.distinct_id === "string" ? cleanDistinctId(item.distinct_id) : "";
  if (!distinctId) return "missing_distinct_id";
  if (longerThanBytes(distinctId, MAX_NAME_BYTES)) return "distinct_id_too_large";
  if (typeof item.timestamp !== "string" || !isRfc3339(item.timestamp)) return "invalid_event_timestamp";
  const properties = item.properties === undefined ? {} : item.properties;
  if (!isObject(properties)) return "malformed_event_properties";
  const options = optionsOf(item.options);
  if (!options) return "invalid_options";

  // The fields v1 lifted out of the properties go back in as the properties PostHog stores, over
  // the client's own of the same name. In place: the object is the decoded body's, ours alone.
  const stored: Raw = properties;
  const put = (key: string, value: unknown) => {
    if (value !== undefined) stored[key] = value;
  };
  put("$session_id", typeof item.session_id === "string" ? item.session_id : undefined);
  put("$window_id", typeof item.window_id === "string" ? item.window_id : undefined);
  put("$cookieless_mode", options.cookieless_mode);
  put("$ignore_sent_at", options.disable_skew_correction);
  put("$product_tour_id", options.product_tour_id);
  put("$process_person_profile", options.process_person_profile);
  put("$lib", meta.lib?.name);
  put("$lib_version", meta.lib?.version);
  const sentAt = options.disable_skew_correction ? null : meta.sentAt;
  return {
    uuid,
    event: name,
    distinctId,
    properties: stored,
    timestamp: eventTime({ timestamp: item.timestamp }, sentAt, now),
  };
}

interface V1Options {
  cookieless_mode?: boolean;
  disable_skew_correction?: boolean;
  process_person_profile?: boolean;
  product_tour_id?: string;
}

/** `options`, coerced as PostHog coerces them; null when it is not an object or a field is unusable. */
function optionsOf(raw: unknown): V1Options | null {
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) return null;
  const options: V1Options = {};
  for (const key of ["cookieless_mode", "disable_skew_correction", "process_person_profile"] as const) {
    if (raw[key] === undefined || raw[key] === null) continue;
    const value = booleanOf(raw[key]);
    if (value === undefined) return null;
    options[key] = value;
  }
  const tour = raw.product_tour_id;
  if (typeof tour === "string") options.product_tour_id = tour;
  else if (Number.isInteger(tour)) options.product_tour_id = String(tour);
  else if (tour !== undefined && tour !== null) return null;
  return options;
}

function booleanOf(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return value !== 0;
  if (typeof value !== "string") return undefined;
  const text = value.trim().toLowerCase();
  if (text === "true" || text === "1") return true;
  if (text === "false" || text === "0") return false;
  return undefined;
}

const isRfc3339 = (text: string) => RFC_3339.test(text) && !Number.isNaN(Date.parse(text));

/**
 * The request's headers as v1 uses them: the project token of `Authorization: Bearer` (401 without
 * one); `PostHog-Request-Timestamp`, which must be RFC 3339 when sent; `PostHog-Sdk-Info`
 * (`posthog-node/5.70.0`), which names the library and is ignored when malformed.
 */
export function v1RequestMeta(headers: Headers): V1RequestMeta {
  const authorization = headers.get("authorization");
  if (!authorization) throw notAuthenticated();
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!bearer) throw authenticationFailed("Authorization header must be of the form 'Bearer <project API key>'.");
  const timestamp = headers.get("posthog-request-timestamp")?.trim();
  if (timestamp !== undefined && !isRfc3339(timestamp))
    throw validationError(
      `invalid header value: PostHog-Request-Timestamp is not valid RFC 3339: ${excerpt(timestamp)}`,
      "PostHog-Request-Timestamp",
      "invalid_header_value",
    );
  return {
    token: bearer[1],
    sentAt: timestamp === undefined ? null : new Date(timestamp),
    lib: libOf(headers.get("posthog-sdk-info")),
  };
}

function libOf(info: string | null): V1RequestMeta["lib"] {
  if (!info || longerThanBytes(info, MAX_SDK_INFO_BYTES)) return null;
  const slash = info.lastIndexOf("/");
  const name = info.slice(0, Math.max(slash, 0)).trim();
  const version = info.slice(slash + 1).trim();
  return slash > 0 && name && version ? { name, version } : null;
}
