/** A request path as routes are matched: the trailing slash is optional everywhere (`/` stays `/`). */
export const withoutTrailingSlash = (path: string) => (path.length > 1 ? path.replace(/\/$/, "") : path);
