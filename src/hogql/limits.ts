/** Rows a run returns when neither the run nor the query's LIMIT says (PostHog's default). */
export const DEFAULT_LIMIT = 100;
/** The most rows a run may return, on every engine. */
export const MAX_LIMIT = 50_000;
