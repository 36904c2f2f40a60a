/**
 * What the persons area asks of the events store when persons change outside ingestion (deletion,
 * split, reset_person_distinct_id) or when it reads a person's events (properties timeline). D1
 * keeps persons authoritative either way; the store makes the events follow: D1 rewrites or deletes
 * event rows, ClickHouse deletes by predicate and writes the persons mirror (design.md section 9).
 */

/** A person as both engines name it: D1's row id (what D1's `events.person_id` holds) and its uuid (ClickHouse's). */
export interface PersonKey {
  id: number;
  uuid: string;
}

/** A person's row as D1 holds it after a write: what the ClickHouse mirror stores as the person's next version. */
export interface PersonVersion {
  /** D1's row id. */
  id: number;
  uuid: string;
  createdAt: string;
  properties: Record<string, unknown>;
  isIdentified: boolean;
  version: number;
}

/** A person about to be deleted from D1, with its last version and the distinct ids that go with it. */
export interface DeletedPerson extends PersonKey {
  createdAt: string;
  version: number;
  distinctIds: string[];
}

/** A split done in D1: the person after it, and each distinct id that left it with the new person it now belongs to. */
export interface PersonSplit {
  person: PersonVersion & PersonKey;
  moved: { distinctId: string; person: PersonVersion }[];
}

/**
 * The events a properties timeline replays: the person's events up to `to` that are in range
 * (from `from`) or update person properties ($set, $set_once, $unset), oldest first, at most `limit`.
 */
export interface TimelineEventsQuery {
  projectId: number;
  person: PersonKey;
  from: string;
  to: string;
  limit: number;
}

export interface TimelineEvent {
  /** ISO 8601 UTC with milliseconds, as D1 stores it. */
  timestamp: string;
  /** The event's properties as JSON text. */
  properties: string;
  /** Whether the event is at or after `from` (earlier ones only rebuild the properties). */
  inRange: boolean;
}
