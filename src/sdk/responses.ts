import type { Reason } from "../flags/evaluation/reasons";
import type { FlagDefinition, FlagResult } from "../flags/evaluation/types";

type Shape = "detailed" | "legacy" | "values" | "keys";

/** v2 detailed record (`/flags?v=2`, `/decide?v=4`); error records carry `failed: true`. */
function detailed(r: FlagResult) {
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
    ...(r.failed ? { failed: true } : {}),
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

function detailedJson(r: FlagResult): string {
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

/**
 * The response body, as JSON text, by API and version (flag-eval.md §6.2): `/flags` v>=2 and
 * `/decide` v>=4 are detailed; `/flags` v1 and `/decide` v3 legacy; `/decide` v2 enabled values;
 * v1 enabled keys. `errorsWhileComputingFlags` is true when a flag's record is an error record.
 */
export function flagsResponseJson(results: Record<string, FlagResult>, shape: Shape, requestId: string): string {
  const list = Object.values(results);
  if (shape === "keys") return JSON.stringify({ featureFlags: list.filter((r) => r.enabled).map((r) => r.key) });
  if (shape === "values")
    return JSON.stringify({
      featureFlags: Object.fromEntries(list.filter((r) => r.enabled).map((r) => [r.key, flagValue(r)])),
    });
  const errors = anyFailed(list);
  if (shape === "legacy") {
    return JSON.stringify({
      errorsWhileComputingFlags: errors,
      featureFlags: Object.fromEntries(list.map((r) => [r.key, flagValue(r)])),
      featureFlagPayloads: Object.fromEntries(
        list.filter((r) => r.enabled && r.payload != null).map((r) => [r.key, r.payload]),
      ),
      requestId,
      evaluatedAt: Date.now(),
    });
  }
  let flags = "";
  for (const r of list) flags += `${flags ? "," : ""}${JSON.stringify(r.key)}:${detailedJson(r)}`;
  return `{"errorsWhileComputingFlags":${errors},"flags":{${flags}},"requestId":${JSON.stringify(requestId)},"evaluatedAt":${Date.now()}}`;
}

export function shapeFor(api: "flags" | "decide", version: number): Shape {
  if (api === "flags") return version >= 2 ? "detailed" : "legacy";
  if (version >= 4) return "detailed";
  if (version === 3) return "legacy";
  return version === 2 ? "values" : "keys";
}
