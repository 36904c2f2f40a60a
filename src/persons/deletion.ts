import { sql } from "drizzle-orm";
import type { AnalyticsStore } from "../analytics";
import type { Db } from "../db/client";
import { activityEntries } from "../lib/activity-log";
import type { Principal } from "../lib/auth/principal";
import { type BatchItem, chunkJson, runBatch } from "../lib/d1";
import type { PersonWithIds } from "./serialize";
import { getPersonsByIds } from "./service";

export interface DeleteOptions {
  deleteEvents: boolean;
  keepPerson: boolean;
  /** Events stored at or after this instant (ISO) are kept: deletion covers what existed when the request came. */
  before: string;
}

/**
 * Deletes persons (their distinct ids, cohort memberships and flag overrides go with them) and,
 * when asked, their events stored before the request; one activity entry per person. The person
 * rows and entries are one `db.batch`, so a failure leaves no person half-deleted.
 */
export async function deletePersons(
  db: Db,
  store: AnalyticsStore,
  projectId: number,
  people: PersonWithIds[],
  options: DeleteOptions,
  principal: Principal,
) {
  if (!people.length) return;
  // Events first, then the events store's copy of the persons, both outside the batch (persons may
  // own millions of events) and both repeatable: if either fails, the persons are still in D1 and
  // the request can be repeated in full. The other way round, a failure would leave the persons
  // deleted here but readable in the store, with no request left to repeat.
  if (options.deleteEvents) await store.deletePersonEvents(projectId, people, options.before);
  if (!options.keepPerson) await store.personsDeleted(projectId, people);
  const statements: BatchItem[] = [];
  for (const chunk of chunkJson(people.map((p) => p.id))) {
    const ids = sql`(SELECT value FROM json_each(${chunk}))`;
    if (!options.keepPerson) {
      // Dependent rows are deleted explicitly rather than trusting ON DELETE CASCADE (foreign keys may be off).
      statements.push(
        sql`DELETE FROM person_distinct_ids WHERE project_id = ${projectId} AND person_id IN ${ids}`,
        sql`DELETE FROM cohort_people WHERE person_id IN ${ids}`,
        sql`DELETE FROM flag_hash_key_overrides WHERE project_id = ${projectId} AND person_id IN ${ids}`,
        sql`DELETE FROM persons WHERE project_id = ${projectId} AND id IN ${ids}`,
      );
    }
  }
  if (!options.keepPerson) {
    statements.push(
      activityEntries(
        people.map((p) => ({
          projectId,
          scope: "Person" as const,
          itemId: p.id,
          activity: "deleted",
          principal,
          name: p.uuid,
        })),
      ),
    );
  }
  await runBatch(db, statements);
}

/** bulk_delete's persons: by uuid or integer id (`ids`), or by distinct id. */
export async function findPersonsForBulkDelete(
  db: Db,
  projectId: number,
  by: { ids?: (string | number)[]; distinctIds?: string[] },
): Promise<PersonWithIds[]> {
  const keys = JSON.stringify((by.ids ?? []).map(String));
  const found = await db.all<{ id: number }>(
    by.distinctIds
      ? sql`SELECT DISTINCT d.person_id AS id FROM json_each(${JSON.stringify(by.distinctIds)}) j
          CROSS JOIN person_distinct_ids d ON d.project_id = ${projectId} AND d.distinct_id = j.value`
      : sql`SELECT id FROM persons WHERE project_id = ${projectId}
          AND (uuid IN (SELECT lower(value) FROM json_each(${keys})) OR CAST(id AS TEXT) IN (SELECT value FROM json_each(${keys})))`,
  );
  // With their versions and distinct ids, which the events store's copy of them needs.
  return getPersonsByIds(
    db,
    projectId,
    found.map((p) => p.id),
  );
}
