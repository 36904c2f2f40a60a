/** An event accepted for storage: validated, with its final timestamp (capture/normalize.ts makes them). */
export interface CapturedEvent {
  uuid: string;
  event: string;
  distinctId: string;
  properties: Record<string, unknown>;
  /** ISO 8601 UTC with milliseconds, after clock-skew correction. */
  timestamp: string;
}
