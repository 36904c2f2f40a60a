/**
 * The rows edgehog writes to ClickHouse (clickhouse/migrations/), as the events queue carries them
 * and `JSONEachRow` inserts them: column names as in the tables, times as ISO 8601 UTC text, JSON
 * values as text. D1 stays authoritative for persons; the person tables are a versioned mirror of it
 * (the highest `version` of a key wins when read), so rows may arrive in any order and more than once.
 */

export interface EventRow {
  uuid: string;
  team_id: number;
  event: string;
  distinct_id: string;
  /** The event's properties as JSON text. */
  properties: string;
  timestamp: string;
  created_at: string;
  /** The uuid of the person the distinct id belonged to at ingestion; null when it had none. */
  person_id: string | null;
}

/**
 * One version of a person (`person`): D1's row, its uuid as `id`, its D1 row id, and its version in
 * the mirror (mirroredPersonVersion of D1's, +1 for a deletion).
 */
export interface PersonRow {
  id: string;
  /** D1's row id: the persons analysis answers persons by it, in its order. */
  d1_id: number;
  team_id: number;
  created_at: string;
  properties: string;
  is_identified: 0 | 1;
  is_deleted: 0 | 1;
  /** Decimal text: it passes JavaScript's exact integers (the `version` column is a UInt64). */
  version: string;
}

/** Which person a distinct id belongs to (`person_distinct_id2`), or that it no longer exists (`is_deleted`). */
export interface DistinctIdRow {
  team_id: number;
  distinct_id: string;
  person_id: string;
  is_deleted: 0 | 1;
  version: number;
}

/**
 * A distinct id whose stored events read as another person (`person_distinct_id_overrides`): written
 * when persons merge or split, so event rows are never rewritten; `is_deleted` drops the override.
 */
export type OverrideRow = DistinctIdRow;

/** The tables a queue message may carry rows for; the consumer inserts each table's rows of a batch at once. */
export interface ClickHouseRows {
  events?: EventRow[];
  person?: PersonRow[];
  person_distinct_id2?: DistinctIdRow[];
  person_distinct_id_overrides?: OverrideRow[];
}

/** A person as the mirror needs it (D1's row, or an ingest's draft of it). */
export interface MirroredPerson {
  /** D1's row id. */
  id: number;
  uuid: string;
  createdAt: string;
  properties: Record<string, unknown>;
  isIdentified: boolean;
}

/** A person's mirror row at `version`; a deleted one keeps nothing readable (its properties emptied). */
export function personRow(teamId: number, p: MirroredPerson, version: number, deleted = false): PersonRow {
  return {
    id: p.uuid,
    d1_id: p.id,
    team_id: teamId,
    created_at: p.createdAt,
    properties: deleted ? "{}" : JSON.stringify(p.properties),
    is_identified: !deleted && p.isIdentified ? 1 : 0,
    is_deleted: deleted ? 1 : 0,
    version: mirroredPersonVersion(p.id, version),
  };
}

/**
 * A person's version in the mirror: D1's row id above D1's version. A person keeps their D1 id for
 * life, so their versions order as D1's do; a person created again under the same uuid (PostHog
 * derives it from the first distinct id, so a deleted person's id captured again after
 * reset_person_distinct_id gives it back) has a higher D1 id, so every version of theirs outranks
 * the deleted one's, its deletion included, which D1's versions (from 0 again) would not. It fits the
 * UInt64 column while D1 ids stay below 2^32 and a person's D1 version below 2^32.
 */
export const mirroredPersonVersion = (d1Id: number, version: number): string =>
  ((BigInt(d1Id) << 32n) + BigInt(version)).toString();

/** A distinct id's row in person_distinct_id2 or person_distinct_id_overrides (the same columns). */
export function distinctIdRow(
  teamId: number,
  distinctId: string,
  personUuid: string,
  version: number,
  deleted = false,
): DistinctIdRow {
  return { team_id: teamId, distinct_id: distinctId, person_id: personUuid, is_deleted: deleted ? 1 : 0, version };
}

let lastVersion = 0;

/**
 * A version for rows whose D1 source has none (distinct ids, overrides): microseconds of wall time,
 * strictly increasing within the isolate. Writes to one distinct id are ordered by D1, so they land
 * at least milliseconds apart; clock skew between Cloudflare machines is far below that.
 */
export function mirrorVersion(now = Date.now()): number {
  lastVersion = Math.max(lastVersion + 1, now * 1000);
  return lastVersion;
}

/** Microseconds since the epoch as ISO 8601 UTC text with six fractional digits (DateTime64(6)). */
export function microsIso(micros: number): string {
  const iso = new Date(Math.floor(micros / 1000)).toISOString();
  return `${iso.slice(0, 23)}${String(micros % 1000).padStart(3, "0")}Z`;
}
