/**
 * Persons and events as tests describe them, whichever store seeds them: D1 (test/endpoints/fixtures.ts)
 * or ClickHouse (test/clickhouse/seed.ts).
 */
export interface SeedPerson {
  uuid?: string;
  /** The person's D1 row id, which ClickHouse's mirror carries (`d1_id`); 0 when not given. */
  id?: number;
  distinctIds: string[];
  properties?: Record<string, unknown>;
  createdAt?: string;
  isIdentified?: boolean;
}
export interface SeedEvent {
  event: string;
  distinctId: string;
  timestamp: string;
  properties?: Record<string, unknown>;
  uuid?: string;
}
export interface SeedData {
  persons?: SeedPerson[];
  events?: SeedEvent[];
}
