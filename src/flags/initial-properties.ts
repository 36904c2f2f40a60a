/**
 * Person properties whose first value ingestion also stores as `$initial_<name>` (PostHog's
 * PERSON_PROPERTIES_ADAPTED_FROM_EVENT and campaign properties). The server fills a missing
 * `$initial_` key from the current value, so a flag on `$initial_*` matches before ingestion has
 * written it (flag-eval.md §3.4).
 */
const ADAPTED = [
  "$app_build",
  "$app_name",
  "$app_namespace",
  "$app_version",
  "$browser",
  "$browser_version",
  "$device_type",
  "$current_url",
  "$pathname",
  "$os",
  "$os_version",
  "$referring_domain",
  "$referrer",
  "$screen_height",
  "$screen_width",
  "$viewport_height",
  "$viewport_width",
  "$raw_user_agent",
];
const CAMPAIGN = [
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_content",
  "utm_term",
  "gclid",
  "gad_source",
  "gclsrc",
  "dclid",
  "gbraid",
  "wbraid",
  "fbclid",
  "msclkid",
  "twclid",
  "li_fat_id",
  "mc_cid",
  "igshid",
  "ttclid",
  "rdt_cid",
  "epik",
  "qclid",
  "sccid",
  "irclid",
  "_kx",
];
const INITIAL = new Map(
  [...ADAPTED, ...CAMPAIGN].map((k) => [k, k.startsWith("$") ? `$initial_${k.slice(1)}` : `$initial_${k}`]),
);

/** Adds `$initial_<x>` from `<x>` where the former is missing (in place). */
export function backfillInitialProperties(properties: Record<string, unknown>): Record<string, unknown> {
  for (const [key, initial] of INITIAL) {
    if (key in properties && !(initial in properties)) properties[initial] = properties[key];
  }
  return properties;
}
