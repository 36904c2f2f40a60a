/**
 * The analysis views' calendar in the project's time zone: src/lib/time/zone.ts and the canonical
 * instant form, under the names the views import.
 */
export { iso } from "../../lib/time/iso";
export { addIntervals, type Interval, startOfInterval } from "../../lib/time/zone";
