import type { Context } from "hono";
import type { EvaluationRequest } from "../flags/evaluate-request";
import { authenticationFailed, validationError } from "../lib/errors";
import { DEFAULT_BODY_LIMIT } from "../lib/body-limit";
import { isObject } from "../lib/json";
import { decodeSdkBody } from "../lib/sdk-body";
import { callerRuntime } from "./runtime";

/** The body of a /flags or /decide request as an object (`{}` when empty), whatever its encoding. */
export async function sdkBodyOf(c: Context): Promise<Record<string, unknown>> {
  const { payload } = decodeSdkBody(await c.req.arrayBuffer(), {
    contentType: c.req.header("content-type"),
    contentEncoding: c.req.header("content-encoding"),
    maxDecodedBytes: DEFAULT_BODY_LIMIT,
  });
  if (payload === undefined) return {};
  if (!isObject(payload))
    throw validationError("Malformed request data: the body must be a JSON object.", null, "invalid_payload");
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
const firstString = (...values: unknown[]) =>
  values.find((v) => typeof v === "string" && v !== "") as string | undefined;

/** `evaluation_contexts` (or its older name): a list of strings, or absent. */
function contextsOf(body: Record<string, unknown>): string[] | undefined {
  const value = body.evaluation_contexts ?? body.evaluation_environments;
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value))
    throw validationError("evaluation_contexts must be a list of strings", "evaluation_contexts");
  return value.filter((v): v is string => typeof v === "string" && v !== "");
}

/** PostHog keeps the first 200 Unicode characters of a longer id (an emoji is one, not two UTF-16 units). */
const MAX_DISTINCT_ID_CHARACTERS = 200;

const firstCharacters = (text: string, count: number) =>
  text.length <= count ? text : Array.from(text).slice(0, count).join("");

/**
 * The evaluation request of a /flags or /decide body, with PostHog's field aliases (flag-eval.md §6.1).
 * `headers` tell the caller's runtime when the body does not name one (see runtime.ts).
 */
export function evaluationRequestOf(
  body: Record<string, unknown>,
  headers: { get(name: string): string | null | undefined },
): EvaluationRequest {
  const raw = body.distinct_id ?? body.$distinct_id;
  // PostHog's flags service refuses only a missing id; an empty one is evaluated (and hashed) as is.
  if (raw === undefined || raw === null) throw validationError("distinct_id is required", "distinct_id", "required");
  const distinctId = firstCharacters(
    typeof raw === "number" ? String(raw) : typeof raw === "string" ? raw : JSON.stringify(raw),
    MAX_DISTINCT_ID_CHARACTERS,
  );
  const flagKeys = body.flag_keys_to_evaluate ?? body.flag_keys;
  return {
    distinctId,
    groups: firstObject(body.groups, body.$groups) ?? {},
    personProperties: firstObject(body.person_properties, body.$properties) ?? {},
    groupProperties: (firstObject(body.group_properties, body.$group_properties) ?? {}) as Record<
      string,
      Record<string, unknown>
    >,
    anonDistinctId: firstString(body.$anon_distinct_id, body.anon_distinct_id),
    deviceId: firstString(body.$device_id, body.device_id),
    flagKeys: Array.isArray(flagKeys) ? flagKeys.filter((k): k is string => typeof k === "string") : undefined,
    runtime: callerRuntime(body.evaluation_runtime, headers),
    contexts: contextsOf(body),
  };
}
