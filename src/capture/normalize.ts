import { validationError } from "../lib/errors";
import { isObject } from "../lib/json";
import type { CapturedEvent } from "../persons/ingest/event";
import { wellFormed } from "../lib/text";

export interface RejectedEvent {
  index: number;
  reason: string;
}

export interface CaptureRequest {
  token: string | null;
  events: CapturedEvent[];
  rejected: RejectedEvent[];
}

type Raw = Record<string, unknown>;
/** A uuid in the hyphenated form SDKs send, in either case. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** PostHog refuses timestamps this far in the future and uses the receive time instead. */
const MAX_FUTURE_MS = 23 * 3600 * 1000;

/**
 * Splits a decoded capture payload into events. The payload is `{batch: [...]}` (posthog-node),
 * a bare array (posthog-js), or one event. The token comes from the batch (`api_key`/`token`),
 * the first event that carries one, or the query string.
 */
export function normalizeCapture(
  payload: unknown,
  query: URLSearchParams,
  form: URLSearchParams | null,
  now: Date,
): CaptureRequest {
  let items: unknown[];
  let envelope: Raw = {};
  if (Array.isArray(payload)) items = payload;
  else if (isObject(payload) && Array.isArray(payload.batch)) {
    items = payload.batch;
    envelope = payload;
  } else if (isObject(payload) && (payload.event !== undefined || payload.distinct_id !== undefined)) items = [payload];
  else
    throw validationError(
      'Malformed request data: expected an event, an array of events, or {"batch": [...]}.',
      null,
      "invalid_payload",
    );

  const batchSentAt = parseDate(envelope.sent_at) ?? parseDate(query.get("_") ? Number(query.get("_")) : undefined);
  const events: CapturedEvent[] = [];
  const rejected: RejectedEvent[] = [];
  let token: string | null = stringOf(envelope.api_key) ?? stringOf(envelope.token) ?? null;
  for (const [index, item] of items.entries()) {
    const reject = (reason: string) => rejected.push({ index, reason });
    if (!isObject(item)) {
      reject("The event is not an object.");
      continue;
    }
    const raw = item.properties === undefined || item.properties === null ? {} : item.properties;
    if (!isObject(raw)) {
      reject("`properties` must be an object.");
      continue;
    }
    const properties = withTopLevelPersonUpdates(item, raw);
    token ??= stringOf(item.api_key) ?? stringOf(item.token) ?? stringOf(properties.token) ?? null;
    const event = item.event;
    if (typeof event !== "string" || !event.length) {
      reject("The event has no `event` name.");
      continue;
    }
    const distinctId = distinctIdOf(item, properties);
    if (distinctId === undefined) {
      reject("The event has no `distinct_id`.");
      continue;
    }
    if (distinctId.length > 200) {
      reject("`distinct_id` is longer than 200 characters.");
      continue;
    }
    const uuid = typeof item.uuid === "string" && UUID.test(item.uuid) ? item.uuid.toLowerCase() : crypto.randomUUID();
    const sentAt = properties.$ignore_sent_at ? null : (parseDate(item.sent_at) ?? batchSentAt);
    events.push({ uuid, event: event.slice(0, 400), distinctId, properties, timestamp: eventTime(item, sentAt, now) });
  }
  token ??= query.get("api_key") ?? query.get("token") ?? form?.get("api_key") ?? form?.get("token") ?? null;
  return { token, events, rejected };
}

/** Older SDKs send `$set` / `$set_once` beside `properties`; PostHog folds them into the properties. */
function withTopLevelPersonUpdates(item: Raw, properties: Raw): Raw {
  if (!isObject(item.$set) && !isObject(item.$set_once)) return properties;
  const out = { ...properties };
  for (const key of ["$set", "$set_once"] as const) {
    if (isObject(item[key])) out[key] = { ...(isObject(properties[key]) ? properties[key] : {}), ...item[key] };
  }
  return out;
}

function distinctIdOf(item: Raw, properties: Raw): string | undefined {
  const raw = item.distinct_id ?? item.$distinct_id ?? properties.distinct_id;
  if (typeof raw === "number" || typeof raw === "boolean") return String(raw);
  if (typeof raw !== "string") return undefined;
  return cleanDistinctId(raw) || undefined;
}

/** A distinct id as it is stored and looked up: trimmed, well-formed text ("" when nothing is left). */
export const cleanDistinctId = (raw: string) => wellFormed(raw.trim());

/**
 * PostHog's rule: a client `timestamp` is shifted by the client's clock skew (`now - sent_at`);
 * without `sent_at` it is taken as is; `offset` (ms before sending) counts back from receipt.
 */
export function eventTime(item: Raw, sentAt: Date | null, now: Date): string {
  const timestamp = parseDate(item.timestamp);
  let ms: number;
  if (timestamp && sentAt) ms = timestamp.getTime() + (now.getTime() - sentAt.getTime());
  else if (timestamp) ms = timestamp.getTime();
  else if (typeof item.offset === "number" && Number.isFinite(item.offset)) ms = now.getTime() - item.offset;
  else ms = now.getTime();
  if (ms - now.getTime() > MAX_FUTURE_MS || ms < 0) ms = now.getTime();
  return new Date(ms).toISOString();
}

function parseDate(value: unknown): Date | null {
  if (typeof value !== "string" && typeof value !== "number") return null;
  if (typeof value === "string" && !value.trim()) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

const stringOf = (v: unknown) => (typeof v === "string" && v.length ? v : undefined);
