import type { FlagResult } from "../flags/evaluation/types";

/** v2 detailed record (`/flags?v=2`, `/decide?v=4`). */
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
  };
}

const valueOf = (r: FlagResult) => (r.enabled ? (r.variant ?? true) : false);

/**
 * The response shapes by API and version (flag-eval.md §6.2): `/flags` v>=2 and `/decide` v>=4
 * are detailed; `/flags` v1 and `/decide` v3 legacy; `/decide` v2 enabled values; v1 enabled keys.
 */
export function flagsResponse(results: Record<string, FlagResult>, shape: "detailed" | "legacy" | "values" | "keys", requestId: string) {
  const list = Object.values(results);
  if (shape === "keys") return { featureFlags: list.filter((r) => r.enabled).map((r) => r.key) };
  if (shape === "values") return { featureFlags: Object.fromEntries(list.filter((r) => r.enabled).map((r) => [r.key, valueOf(r)])) };
  if (shape === "legacy") {
    return {
      errorsWhileComputingFlags: false,
      featureFlags: Object.fromEntries(list.map((r) => [r.key, valueOf(r)])),
      featureFlagPayloads: Object.fromEntries(list.filter((r) => r.enabled && r.payload != null).map((r) => [r.key, r.payload])),
      requestId,
      evaluatedAt: Date.now(),
    };
  }
  return {
    errorsWhileComputingFlags: false,
    flags: Object.fromEntries(list.map((r) => [r.key, detailed(r)])),
    requestId,
    evaluatedAt: Date.now(),
  };
}

export function shapeFor(api: "flags" | "decide", version: number): "detailed" | "legacy" | "values" | "keys" {
  if (api === "flags") return version >= 2 ? "detailed" : "legacy";
  if (version >= 4) return "detailed";
  if (version === 3) return "legacy";
  return version === 2 ? "values" : "keys";
}
