import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../env";
import { payloadTooLarge } from "./errors";
import { withoutTrailingSlash } from "./path";

/** Management and flag-evaluation bodies are small; capture declares its own, larger limit. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

const limitBody = (maxSize: number) =>
  bodyLimit({
    maxSize,
    onError: () => {
      throw payloadTooLarge(maxSize);
    },
  });

/**
 * Applies the body limit of the request's path: the first rule listing the path (with or without
 * its trailing slash), else the default.
 */
export function limitBodyByPath(
  defaultMaxSize: number,
  rules: { paths: readonly string[]; maxSize: number }[],
): MiddlewareHandler<AppEnv> {
  const fallback = limitBody(defaultMaxSize);
  const compiled = rules.map((rule) => ({ paths: new Set(rule.paths), middleware: limitBody(rule.maxSize) }));
  return (c, next) => {
    const path = withoutTrailingSlash(c.req.path);
    const rule = compiled.find((r) => r.paths.has(path));
    return (rule?.middleware ?? fallback)(c, next);
  };
}
