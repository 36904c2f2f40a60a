/** A JSON object (not null, not an array), as parsed request bodies and stored properties hold them. */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** JSON with object keys sorted at every level: equal values give equal bytes (for ETags and cache keys). */
export function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    isObject(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}

/**
 * SQLite's JSON path to one key of an object (`.key` after `$` or a parent path): the key written as
 * a JSON string, which SQLite unescapes, so every key addresses itself, whatever it holds (quotes,
 * backslashes, NUL, dots, brackets). A plain `"key"` label would break on the first quote or NUL.
 */
export const jsonPathKey = (key: string) => `.${JSON.stringify(key)}`;
