import type { Context } from "hono";
import type { EvaluationRequest } from "../flags/evaluate-request";
import { authenticationFailed, parseError, validationError } from "../lib/errors";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

async function gunzip(body: ArrayBuffer): Promise<string> {
  const stream = new Blob([body]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).text();
}

/**
 * Reads an SDK body: JSON (server SDKs), gzip (`?compression=gzip-js` or `Content-Encoding: gzip`,
 * browsers), base64-encoded JSON, or a form with a `data` field (older browser SDKs). Anything
 * else is a 400.
 */
export async function readSdkBody(c: Context): Promise<Record<string, unknown>> {
  const gzipped = c.req.query("compression") === "gzip-js" || /gzip/i.test(c.req.header("content-encoding") ?? "");
  let text: string;
  try {
    text = gzipped ? await gunzip(await c.req.arrayBuffer()) : await c.req.text();
  } catch {
    throw parseError("The request body could not be decompressed.");
  }
  if (!text.trim()) return {};
  const attempts: Array<() => unknown> = [
    () => JSON.parse(text),
    () => JSON.parse(atob(text)),
    () => {
      const data = new URLSearchParams(text).get("data");
      if (data === null) throw new Error("no data field");
      try {
        return JSON.parse(data);
      } catch {
        return JSON.parse(atob(data));
      }
    },
  ];
  for (const attempt of attempts) {
    try {
      const value = attempt();
      if (isObject(value)) return value;
    } catch {
      // try the next encoding
    }
  }
  throw parseError();
}

/** A form's `data` field: JSON or base64-encoded JSON. */
export function parseFormData(data: unknown): Record<string, unknown> {
  for (const decode of [(d: string) => d, (d: string) => atob(d)]) {
    try {
      const value = typeof data === "string" ? JSON.parse(decode(data)) : undefined;
      if (isObject(value)) return value;
    } catch {
      // try the next encoding
    }
  }
  throw parseError();
}

/**
 * The body of a /flags or /decide request, whatever its encoding. JSON and form bodies were
 * already parsed by the route's validators; gzip and text bodies are read here.
 */
export async function sdkBodyOf(c: Context): Promise<Record<string, unknown>> {
  const type = c.req.header("content-type") ?? "";
  const compressed = !!c.req.query("compression") || !!c.req.header("content-encoding");
  const valid = (target: "json" | "form") => (c.req.valid as (t: "json" | "form") => unknown).call(c.req, target);
  if (!compressed && /json/i.test(type)) {
    const body = valid("json");
    if (isObject(body)) return body;
  }
  if (!compressed && /x-www-form-urlencoded/i.test(type)) return parseFormData((valid("form") as Record<string, unknown>).data);
  return readSdkBody(c);
}

/** The project token an SDK sends (`token`, `api_key` or `$token`; PostHog's aliases). */
export function tokenOf(body: Record<string, unknown>, query?: string): string {
  const token = body.token ?? body.api_key ?? body.$token ?? query;
  if (typeof token !== "string" || !token) {
    throw authenticationFailed("API key not provided. You can find your project API key in your project settings.");
  }
  return token;
}

const firstObject = (...values: unknown[]) => values.find(isObject) as Record<string, unknown> | undefined;
const firstString = (...values: unknown[]) => values.find((v) => typeof v === "string" && v !== "") as string | undefined;

/** The evaluation request of a /flags or /decide body, with PostHog's field aliases (flag-eval.md §6.1). */
export function evaluationRequestOf(body: Record<string, unknown>): EvaluationRequest & { runtime?: string } {
  const raw = body.distinct_id ?? body.$distinct_id;
  if (raw === undefined || raw === null || raw === "") throw validationError("distinct_id is required", "distinct_id", "required");
  const distinctId = (typeof raw === "number" ? String(raw) : typeof raw === "string" ? raw : JSON.stringify(raw)).slice(0, 200);
  const flagKeys = body.flag_keys_to_evaluate ?? body.flag_keys;
  return {
    distinctId,
    groups: firstObject(body.groups, body.$groups) ?? {},
    personProperties: firstObject(body.person_properties, body.$properties) ?? {},
    groupProperties: (firstObject(body.group_properties, body.$group_properties) ?? {}) as Record<string, Record<string, unknown>>,
    anonDistinctId: firstString(body.$anon_distinct_id, body.anon_distinct_id),
    deviceId: firstString(body.$device_id, body.device_id),
    flagKeys: Array.isArray(flagKeys) ? flagKeys.filter((k): k is string => typeof k === "string") : undefined,
    runtime: firstString(body.evaluation_runtime),
  };
}
