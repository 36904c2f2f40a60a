import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { cohortPeople, cohorts } from "../../db/schema";

export type CohortRow = typeof cohorts.$inferSelect;

/** Live (not deleted) cohorts of a project, by id. */
export async function liveCohorts(db: Db, projectId: number): Promise<CohortRow[]> {
  return db
    .select()
    .from(cohorts)
    .where(and(eq(cohorts.projectId, projectId), eq(cohorts.deleted, false)));
}

export async function getCohort(db: Db, projectId: number, id: number): Promise<CohortRow | undefined> {
  return db
    .select()
    .from(cohorts)
    .where(and(eq(cohorts.projectId, projectId), eq(cohorts.id, id)))
    .get();
}

/** Of the given static cohorts, the ids that list the person as a member. */
export async function staticCohortsContaining(db: Db, personId: number, cohortIds: number[]): Promise<Set<number>> {
  if (!cohortIds.length) return new Set();
  const rows = await db
    .select({ cohortId: cohortPeople.cohortId })
    .from(cohortPeople)
    .where(and(eq(cohortPeople.personId, personId), inArray(cohortPeople.cohortId, cohortIds)));
  return new Set(rows.map((r) => r.cohortId));
}
