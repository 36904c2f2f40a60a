import type { featureFlags } from "../db/schema";

/** A feature flag as stored. */
export type FlagRow = typeof featureFlags.$inferSelect;
