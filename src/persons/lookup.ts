import { and, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { personDistinctIds, persons } from "../db/schema";

export type PersonRow = typeof persons.$inferSelect;

/** The person a distinct id currently resolves to, if any. */
export async function findPersonByDistinctId(db: Db, projectId: number, distinctId: string): Promise<PersonRow | undefined> {
  const row = await db
    .select({ person: persons })
    .from(personDistinctIds)
    .innerJoin(persons, eq(persons.id, personDistinctIds.personId))
    .where(and(eq(personDistinctIds.projectId, projectId), eq(personDistinctIds.distinctId, distinctId)))
    .get();
  return row?.person;
}
