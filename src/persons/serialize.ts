import type { PersonRow } from "./lookup";

/** A person with its distinct ids in insertion order. */
export interface PersonWithIds extends PersonRow {
  distinctIds: string[];
}

// PostHog's is_anonymous_id: five lowercase alphanumeric groups joined by dashes (browser ids).
const ANONYMOUS = /^([a-z0-9]+-){4}([a-z0-9]+)$/;
const DISPLAY_PROPERTIES = ["email", "name", "username"];

/** Non-anonymous ids first, otherwise in insertion order (a stable sort, as PostHog's). */
export const sortedDistinctIds = (ids: string[]) =>
  [...ids].sort((a, b) => Number(ANONYMOUS.test(a)) - Number(ANONYMOUS.test(b)));

/** PostHog's get_person_name_helper: a display property, else the first distinct id, else the fallback. */
export function personName(person: PersonWithIds, fallback: string): unknown {
  for (const key of DISPLAY_PROPERTIES) if (person.properties[key]) return person.properties[key];
  return sortedDistinctIds(person.distinctIds)[0] ?? fallback;
}

/** PostHog's PersonSerializer (retrieve, update): integer id. */
export function personRecord(person: PersonWithIds) {
  return {
    id: person.id,
    name: personName(person, String(person.id)),
    distinct_ids: sortedDistinctIds(person.distinctIds),
    properties: person.properties,
    created_at: person.createdAt,
    uuid: person.uuid,
  };
}

/** PostHog's SerializedPerson (the list and actor endpoints): the uuid as `id`. */
export function serializedPerson(person: PersonWithIds) {
  return {
    type: "person" as const,
    id: person.uuid,
    uuid: person.uuid,
    created_at: person.createdAt,
    properties: person.properties,
    is_identified: person.isIdentified,
    name: personName(person, person.uuid),
    distinct_ids: sortedDistinctIds(person.distinctIds),
    matched_recordings: [] as unknown[],
    value_at_data_point: null,
  };
}

/** An actor of PostHog's ActorsQuery (actor_strategies.py PersonStrategy): the uuid as `id`. */
export function actorRecord(person: PersonWithIds) {
  return {
    id: person.uuid,
    properties: person.properties,
    is_identified: person.isIdentified,
    created_at: person.createdAt,
    distinct_ids: sortedDistinctIds(person.distinctIds),
  };
}
