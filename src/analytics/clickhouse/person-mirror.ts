import type { DeletedPerson, PersonKey, PersonSplit, PersonVersion } from "../person-events";
import { type ClickHouseRows, type PersonRow, mirrorVersion } from "./rows";

/**
 * The mirror rows (rows.ts) of person changes made outside ingestion: deletion, split and
 * reset_person_distinct_id. D1 has already applied the change; these rows make ClickHouse read the
 * same persons, and make events follow their distinct ids through overrides instead of rewrites.
 * Person rows carry D1's version (a deletion one above D1's last); distinct-id and override rows,
 * which have no D1 version, carry mirrorVersion().
 */

const personRow = (teamId: number, p: PersonVersion): PersonRow => ({
  id: p.uuid,
  team_id: teamId,
  created_at: p.createdAt,
  properties: JSON.stringify(p.properties),
  is_identified: p.isIdentified ? 1 : 0,
  is_deleted: 0,
  version: p.version,
});

/**
 * Deleted persons: a deleted version of each (its properties not kept: nothing of a deleted person
 * should stay readable), its distinct ids deleted, and their overrides dropped. Without the override
 * the id's stored events read as the person stored with them (gone as well), and the id's events
 * after a later capture read as the new person the id then gets, as on D1, not as the deleted one.
 */
export function deletionRows(teamId: number, persons: DeletedPerson[]): ClickHouseRows {
  const version = mirrorVersion();
  const ids = persons.flatMap((p) =>
    p.distinctIds.map((distinct_id) => ({
      team_id: teamId,
      distinct_id,
      person_id: p.uuid,
      is_deleted: 1 as const,
      version,
    })),
  );
  return {
    person: persons.map((p) => ({
      id: p.uuid,
      team_id: teamId,
      created_at: p.createdAt,
      properties: "{}",
      is_identified: 0,
      is_deleted: 1,
      version: p.version + 1,
    })),
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
  const moved = split.moved.map((m) => ({
    team_id: teamId,
    distinct_id: m.distinctId,
    person_id: m.person.uuid,
    is_deleted: 0 as const,
    version,
  }));
  return {
    person: [split.person, ...split.moved.map((m) => m.person)].map((p) => personRow(teamId, p)),
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
    person_distinct_id_overrides: [
      { team_id: teamId, distinct_id: distinctId, person_id: current.uuid, is_deleted: 0, version: mirrorVersion() },
    ],
  };
}
