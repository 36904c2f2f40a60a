import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { CORS_ALLOWED_ORIGINS, setting } from "./config";
import { BOOKMARK_HEADER } from "./d1-sessions";
import { errorResponse, permissionDenied } from "./errors";
import { withoutTrailingSlash } from "./path";

/**
 * Cross-origin access. The SDK surface is called by posthog-js from any site, so, as PostHog's
 * capture service does, it mirrors the caller's origin and requested headers and allows
 * credentials. Management routes hold personal keys: a browser on another origin may call them
 * only when the deployment lists that origin in `CORS_ALLOWED_ORIGINS` (comma-separated, or `*`).
 */
export interface CorsPolicy {
  /** Whether a path (without its trailing slash) belongs to the SDK surface. */
  isSdkPath: (path: string) => boolean;
}

const SDK_METHODS = "GET, POST, OPTIONS";
const MANAGEMENT_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";
/** What posthog-js and the server SDKs send, for a preflight that does not name its headers. */
const DEFAULT_HEADERS = "Content-Type, Content-Encoding, Authorization, X-Requested-With";
/** Browsers cap this (Chromium at 2 hours); one hour spares most repeated preflights. */
const MAX_AGE_SECONDS = "3600";

export function cors(policy: CorsPolicy): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const sdk = policy.isSdkPath(withoutTrailingSlash(c.req.path));
    const origin = c.req.header("origin");
    const preflight = c.req.method === "OPTIONS";
    const listed = setting(c.env, CORS_ALLOWED_ORIGINS);
    // Responses differ by origin wherever some origin gets CORS headers: caches must keep them apart
    // (remote config is cacheable, and a copy fetched without an Origin must not serve a browser).
    if (sdk || listed === "*" || listed.size) c.header("Vary", "Origin");
    if (!origin) {
      // Not a browser's cross-origin call. SDK paths still answer OPTIONS, as PostHog's capture does.
      if (preflight && sdk) return c.body(null, 204, { Allow: SDK_METHODS });
      return next();
    }
    const allowed = sdk || listed === "*" || listed.has(origin);
    if (!allowed) {
      if (preflight) {
        return errorResponse(
          c,
          permissionDenied(`Origin ${origin} may not call this API from a browser; list it in CORS_ALLOWED_ORIGINS.`),
        );
      }
      return next();
    }
    c.header("Access-Control-Allow-Origin", origin);
    c.header("Access-Control-Allow-Credentials", "true");
    // A browser app that writes then reads passes the bookmark back (lib/d1-sessions.ts).
    if (!preflight) {
      c.header("Access-Control-Expose-Headers", BOOKMARK_HEADER);
      return next();
    }
    return c.body(null, 204, {
      "Access-Control-Allow-Methods": sdk ? SDK_METHODS : MANAGEMENT_METHODS,
      "Access-Control-Allow-Headers": c.req.header("access-control-request-headers") || DEFAULT_HEADERS,
      "Access-Control-Max-Age": MAX_AGE_SECONDS,
      Vary: "Origin, Access-Control-Request-Headers",
    });
  };
}
