import { z } from "@hono/zod-openapi";
import type { FlagDefinition } from "../flags/evaluation/types";
import { type JsonText, jsonText } from "../lib/openapi";

/**
 * Remote config: what posthog-js asks for before anything else (`/array/<token>/config.js`, then
 * `/array/<token>/config`), and what `/decide` and `/flags?config=true` add to their answers.
 * It tells the SDK how to send events (gzip, to `/i/v0/e/`) and which products to start.
 * edgehog has flags and capture only, so every other product is explicitly off: posthog-js then
 * loads no extension script and calls no route that does not exist here.
 *
 * `surveys` is left out on purpose: posthog-js 1.449 loads `/static/surveys.js` even for
 * `surveys: false`, and loads nothing when the key is absent. `sessionRecording` must be present
 * (`false`): when it is missing, posthog-js falls back to a recording config it may have stored
 * from an earlier PostHog session.
 */
export const RemoteConfigSchema = z
  .object({
    supportedCompression: z.array(z.string()),
    hasFeatureFlags: z
      .boolean()
      .openapi({ description: "Whether the project has an active flag (posthog-js then loads flags at once)." }),
    analytics: z.object({ endpoint: z.string() }).openapi({ description: "Where posthog-js sends events." }),
    elementsChainAsString: z.boolean(),
    defaultIdentifiedOnly: z.boolean(),
    autocapture_opt_out: z.boolean(),
    sessionRecording: z.literal(false),
    sessionRecordingDisabledReason: z.string(),
    heatmaps: z.literal(false),
    captureDeadClicks: z.literal(false),
    capturePerformance: z.literal(false),
    autocaptureExceptions: z.literal(false),
    errorTracking: z.object({
      autocaptureExceptions: z.literal(false),
      suppressionRules: z.array(z.unknown()).openapi({ description: "Always empty." }),
    }),
    logs: z.object({ captureConsoleLogs: z.literal(false) }),
    conversations: z.literal(false),
    productTours: z.literal(false),
    siteApps: z.array(z.unknown()).openapi({ description: "Always empty: no site apps." }),
  })
  .openapi("RemoteConfig", {
    description: "posthog-js settings; products edgehog does not have are off (docs/compatibility.md).",
  });

export type RemoteConfig = z.infer<typeof RemoteConfigSchema>;

export function remoteConfig(flags: readonly FlagDefinition[]): RemoteConfig {
  return {
    supportedCompression: ["gzip", "gzip-js"],
    // posthog-js skips its first /flags request when this is false (it still asks after identify).
    hasFeatureFlags: flags.some((f) => f.active),
    analytics: { endpoint: "/i/v0/e/" },
    elementsChainAsString: true,
    defaultIdentifiedOnly: true,
    autocapture_opt_out: false,
    sessionRecording: false,
    sessionRecordingDisabledReason: "not_enabled",
    heatmaps: false,
    captureDeadClicks: false,
    capturePerformance: false,
    autocaptureExceptions: false,
    errorTracking: { autocaptureExceptions: false, suppressionRules: [] },
    logs: { captureConsoleLogs: false },
    conversations: false,
    productTours: false,
    siteApps: [],
  };
}

/**
 * What `/decide` (and `/flags` with `config`) add at the top level of their answer: the remote
 * config, and three fields older posthog-js builds (1.160) read there.
 */
export const ConfigFieldsSchema = RemoteConfigSchema.extend({
  isAuthenticated: z.literal(false).describe("No toolbar session."),
  toolbarParams: z.object({}),
  config: z.object({ enable_collect_everything: z.literal(true).describe("Autocapture is allowed.") }),
}).openapi("SdkConfigFields", {
  description: "The remote config, plus three fields older posthog-js builds read, at the top level of a flags answer.",
});

export type ConfigFields = z.infer<typeof ConfigFieldsSchema>;

const RESPONSE_EXTRAS = {
  isAuthenticated: false,
  toolbarParams: {},
  config: { enable_collect_everything: true },
} satisfies Omit<ConfigFields, keyof RemoteConfig>;

/** Serialized per parsed payload: its flags array lives as long as one ETag of the definitions. */
const serialized = new WeakMap<readonly FlagDefinition[], { config: string; responseFields: string }>();

function serializedFor(flags: readonly FlagDefinition[]) {
  let entry = serialized.get(flags);
  if (!entry) {
    const config = remoteConfig(flags);
    entry = {
      config: JSON.stringify(config),
      responseFields: JSON.stringify({ ...config, ...RESPONSE_EXTRAS } satisfies ConfigFields).slice(1, -1),
    };
    serialized.set(flags, entry);
  }
  return entry;
}

/** The remote config as JSON text. */
export const remoteConfigJson = (flags: readonly FlagDefinition[]) =>
  jsonText<RemoteConfig>(serializedFor(flags).config);

/** A JSON object's text with the config fields added at its top level, as PostHog flattens them in. */
export function withConfigFields<T extends object>(
  objectJson: JsonText<T>,
  flags: readonly FlagDefinition[],
): JsonText<T & ConfigFields> {
  const fields = serializedFor(flags).responseFields;
  return jsonText(objectJson === "{}" ? `{${fields}}` : `${objectJson.slice(0, -1)},${fields}}`);
}

/** The script `/array/<token>/config.js` serves: it leaves the config where posthog-js looks for it. */
export function remoteConfigScript(token: string, flags: readonly FlagDefinition[]): string {
  return [
    "(function() {",
    "  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};",
    `  window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(token)}] = {`,
    `    config: ${remoteConfigJson(flags)},`,
    "    siteApps: []",
    "  }",
    "})();",
    "",
  ].join("\n");
}
