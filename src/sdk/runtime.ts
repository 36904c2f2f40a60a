/**
 * Which runtime a /flags caller is, as PostHog's flags service decides it: the body's
 * `evaluation_runtime` (case-insensitive; any other value means `all`), else the User-Agent (a
 * browser, a server SDK, a mobile SDK), else browser-only headers (Origin, Referer, Sec-Fetch-*).
 * Undetermined callers get only flags without a runtime restriction.
 */
export type CallerRuntime = "client" | "server" | "all" | "undetermined";

const BROWSER_AGENTS = /Mozilla\/|Chrome\/|Safari\/|Firefox\/|Edge\//;
const SERVER_AGENTS = /^posthog-(python|ruby|php|java|go|node|dotnet|elixir)\/|python-requests\/|curl\//;
const MOBILE_AGENTS = /^posthog-(android|ios|react-native|flutter)\//;
const BROWSER_HEADERS = ["origin", "referer", "sec-fetch-mode", "sec-fetch-site"];

export function callerRuntime(
  declared: unknown,
  headers: { get(name: string): string | null | undefined },
): CallerRuntime {
  if (typeof declared === "string") {
    const value = declared.toLowerCase();
    return value === "client" || value === "server" ? value : "all";
  }
  const agent = headers.get("user-agent") ?? "";
  if (BROWSER_AGENTS.test(agent)) return "client";
  if (SERVER_AGENTS.test(agent)) return "server";
  if (MOBILE_AGENTS.test(agent)) return "client";
  return BROWSER_HEADERS.some((name) => headers.get(name)) ? "client" : "undetermined";
}
