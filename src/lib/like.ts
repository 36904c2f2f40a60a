/** Escapes `\`, `%` and `_` for a LIKE pattern used with `ESCAPE '\'`, so user text matches literally. */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
