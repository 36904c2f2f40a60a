/**
 * Hono answers 404 when a path exists under another method. This matcher, built once from the
 * app's route table, tells the not-found handler when to answer 405 instead.
 */
export function pathMatcher(app: { routes: { method: string; path: string }[] }) {
  let patterns: { method: string; regex: RegExp }[] | undefined;
  const build = () =>
    app.routes
      .filter((r) => r.method !== "ALL" && r.path !== "*" && !r.path.endsWith("/*"))
      .map((r) => ({
        method: r.method,
        regex: new RegExp(
          `^${r.path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z_][A-Za-z0-9_]*/g, "[^/]+")}/?$`,
        ),
      }));
  return (path: string): boolean => (patterns ??= build()).some((p) => p.regex.test(path));
}
