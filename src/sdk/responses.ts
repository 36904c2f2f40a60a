import type { Reason } from "../flags/evaluation/reasons";
import type { FlagDefinition, FlagResult } from "../flags/evaluation/types";
import { type JsonText, jsonText } from "../lib/openapi";
import type {
  DecideV1Response,
  DecideV2Response,
  FlagDetail,
  FlagsV1Response,
  FlagsV2Response,
} from "./response-schemas";

/** v2 detailed record (`/flags?v=2`, `/decide?v=4`); error records carry `failed: true`. */
function detailed(r: FlagResult): FlagDetail {
  return {
    key: r.key,
    enabled: r.enabled,
    variant: r.variant,
    reason: r.reason,
    metadata: {
      id: r.flag.id,
      version: r.flag.version ?? 0,
      description: r.flag.name || null,
      payload: r.payload ?? null,
    },
    ...(r.failed ? { failed: true as const } : {}),
  };
}

interface Fragment {
  enabled: boolean;
  payload: unknown;
  json: string;
}

/**
 * Serialized detailed records per flag and outcome. A flag has few distinct outcomes (its reasons
 * are shared objects, its payloads come from the flag itself), so a request mostly joins strings
 * made by earlier requests instead of building and serializing 50 objects. Keyed by the flag
 * object, which lives as long as its parsed payload (one ETag).
 */
const fragments = new WeakMap<FlagDefinition, Map<Reason, Map<string | null, Fragment>>>();

function detailedRecordJson(r: FlagResult): string {
  if (r.failed) return JSON.stringify(detailed(r));
  let byReason = fragments.get(r.flag);
  if (!byReason) fragments.set(r.flag, (byReason = new Map()));
  let byVariant = byReason.get(r.reason);
  if (!byVariant) {
    if (byReason.size > 64) byReason.clear();
    byReason.set(r.reason, (byVariant = new Map()));
  }
  const known = byVariant.get(r.variant);
  if (known && known.enabled === r.enabled && known.payload === r.payload) return known.json;
  const json = JSON.stringify(detailed(r));
  byVariant.set(r.variant, { enabled: r.enabled, payload: r.payload, json });
  return json;
}

const flagValue = (r: FlagResult) => (r.enabled ? (r.variant ?? true) : false);

function anyFailed(list: FlagResult[]): boolean {
  for (const r of list) if (r.failed) return true;
  return false;
}

/** `/decide` v1: the enabled flags' keys. */
function keysJson(list: FlagResult[]) {
  const body: DecideV1Response = { featureFlags: list.filter((r) => r.enabled).map((r) => r.key) };
  return jsonText<DecideV1Response>(JSON.stringify(body));
}

/** `/decide` v2: the enabled flags' values. */
function valuesJson(list: FlagResult[]) {
  const body: DecideV2Response = {
    featureFlags: Object.fromEntries(list.filter((r) => r.enabled).map((r) => [r.key, r.variant ?? true])),
  };
  return jsonText<DecideV2Response>(JSON.stringify(body));
}

/** `/flags` v1 and `/decide` v3: every flag's value, the enabled flags' payloads. */
function legacyJson(list: FlagResult[], requestId: string) {
  const body: FlagsV1Response = {
    errorsWhileComputingFlags: anyFailed(list),
    featureFlags: Object.fromEntries(list.map((r) => [r.key, flagValue(r)])),
    featureFlagPayloads: Object.fromEntries(
      list.filter((r) => r.enabled && r.payload != null).map((r) => [r.key, r.payload]),
    ),
    requestId,
    evaluatedAt: Date.now(),
  };
  return jsonText<FlagsV1Response>(JSON.stringify(body));
}

/** `/flags` v2 and `/decide` v4: detailed records, joined from the per-flag fragments (a FlagsV2Response). */
function detailedJson(list: FlagResult[], requestId: string) {
  let flags = "";
  for (const r of list) flags += `${flags ? "," : ""}${JSON.stringify(r.key)}:${detailedRecordJson(r)}`;
  return jsonText<FlagsV2Response>(
    `{"errorsWhileComputingFlags":${anyFailed(list)},"flags":{${flags}},"requestId":${JSON.stringify(requestId)},"evaluatedAt":${Date.now()}}`,
  );
}

/**
 * The `/flags` body as JSON text (flag-eval.md §6.2): v>=2 detailed, else legacy.
 * `errorsWhileComputingFlags` is true when a flag's record is an error record.
 */
export function flagsResponseJson(
  results: Record<string, FlagResult>,
  version: number,
  requestId: string,
): JsonText<FlagsV2Response | FlagsV1Response> {
  const list = Object.values(results);
  return version >= 2 ? detailedJson(list, requestId) : legacyJson(list, requestId);
}

/** The `/decide` body as JSON text: v>=4 detailed, v3 legacy, v2 enabled values, else enabled keys. */
export function decideResponseJson(
  results: Record<string, FlagResult>,
  version: number,
  requestId: string,
): JsonText<FlagsV2Response | FlagsV1Response | DecideV2Response | DecideV1Response> {
  const list = Object.values(results);
  if (version >= 4) return detailedJson(list, requestId);
  if (version === 3) return legacyJson(list, requestId);
  return version === 2 ? valuesJson(list) : keysJson(list);
}
