import type { Context } from "hono";
import type { EvaluationRequest } from "../flags/evaluate-request";
import { authenticationFailed, validationError } from "../lib/errors";
import { decodeSdkBody } from "../lib/sdk-body";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The body of a /flags or /decide request as an object (`{}` when empty), whatever its encoding. */
export async function sdkBodyOf(c: Context): Promise<Record<string, unknown>> {
  const { payload } = await decodeSdkBody(await c.req.arrayBuffer(), {
    contentType: c.req.header("content-type"),
    contentEncoding: c.req.header("content-encoding"),
  });
  if (payload === undefined) return {};
  if (!isObject(payload)) throw validationError("Malformed request data: the body must be a JSON object.", null, "invalid_payload");
  return payload;
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

const stringsOf = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && v !== "") : undefined);

/**
 * The evaluation request of a /flags or /decide body, with PostHog's field aliases (flag-eval.md §6.1).
 * `fromBrowser`: the request came from a browser (it sent an Origin), so, when the body names no
 * runtime, it is a `client` caller, as PostHog's flags service detects it.
 */
export function evaluationRequestOf(body: Record<string, unknown>, fromBrowser = false): EvaluationRequest {
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
    runtime: firstString(body.evaluation_runtime) ?? (fromBrowser ? "client" : undefined),
    contexts: stringsOf(body.evaluation_contexts ?? body.evaluation_environments),
  };
}
