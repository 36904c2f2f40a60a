import type { DeletedPerson, PersonKey, PersonSplit } from "../person-events";
import { type ClickHouseRows, distinctIdRow, mirrorVersion, personRow } from "./rows";

/**
 * The mirror rows (rows.ts) of person changes made outside ingestion: deletion, split and
 * reset_person_distinct_id. D1 has already applied the change; these rows make ClickHouse read the
 * same persons, and make events follow their distinct ids through overrides instead of rewrites.
 * Person rows carry D1's version (a deletion one above D1's last); distinct-id and override rows,
 * which have no D1 version, carry mirrorVersion().
 */

/**
 * Deleted persons: a deleted version of each (its properties not kept: nothing of a deleted person
 * should stay readable), its distinct ids deleted, and their overrides dropped. Without the override
 * the id's stored events read as the person stored with them (gone as well), and the id's events
 * after a later capture read as the new person the id then gets, as on D1, not as the deleted one.
 */
export function deletionRows(teamId: number, persons: DeletedPerson[]): ClickHouseRows {
  const version = mirrorVersion();
  const ids = persons.flatMap((p) => p.distinctIds.map((d) => distinctIdRow(teamId, d, p.uuid, version, true)));
  return {
    person: persons.map((p) => personRow(teamId, { ...p, properties: {}, isIdentified: false }, p.version + 1, true)),
    person_distinct_id2: ids,
    person_distinct_id_overrides: ids,
  };
}

/**
 * A split: the person's new version, the new persons, and each moved distinct id on its new person,
 * with an override so the id's stored events read as that person too.
 */
export function splitRows(teamId: number, split: PersonSplit): ClickHouseRows {
  const version = mirrorVersion();
  const moved = split.moved.map((m) => distinctIdRow(teamId, m.distinctId, m.person.uuid, version));
  return {
    person: [split.person, ...split.moved.map((m) => m.person)].map((p) => personRow(teamId, p, p.version)),
    person_distinct_id2: moved,
    person_distinct_id_overrides: moved,
  };
}

/**
 * reset_person_distinct_id: the id's past events read as its current person (on D1 they are
 * rewritten to it). Without a current person nothing is written: deletion already dropped the id's
 * override, so its events read as their deleted person, which no persons read finds.
 */
export function resetRows(teamId: number, distinctId: string, current: PersonKey | null): ClickHouseRows {
  if (!current) return {};
  return {
    person_distinct_id_overrides: [distinctIdRow(teamId, distinctId, current.uuid, mirrorVersion())],
  };
}
