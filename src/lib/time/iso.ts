/** Canonical stored form of instants: ISO 8601 UTC with milliseconds and `Z` (as events.timestamp). */
export const iso = (instant: number) => new Date(instant).toISOString();

export const nowIso = () => new Date().toISOString();
