import type { Context } from "hono";
import type { EvaluationRequest } from "../flags/evaluate-request";
import { authenticationFailed, parseError, validationError } from "../lib/errors";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Reads an SDK body: JSON (server SDKs), base64-encoded JSON, or a form with a `data` field
 * (older browser SDKs). Anything else is a 400.
 */
export async function readSdkBody(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
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
