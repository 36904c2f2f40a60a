import { and, count, desc, eq, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import type { Page } from "../lib/pagination";
import { persons } from "../db/schema";
import { filterSql } from "../shared/cohorts/membership";
import type { FilterGroup, FilterTarget } from "../shared/filters";

/** A person's id in conditions over the `persons` table (cohort membership takes it). */
export const PERSON_ID = sql`${persons.id}`;

/** The target for filters over the `persons` table itself. */
const PERSONS_TARGET: FilterTarget = { personProperties: sql`${persons.properties}`, personId: PERSON_ID };

/** The WHERE fragment selecting a project's persons that match a filter group. */
export const personsMatchingSql = (db: Db, projectId: number, group: FilterGroup): Promise<SQL> =>
  filterSql(db, projectId, group, PERSONS_TARGET);

/** How many of a project's persons match a filter group, and how many persons it has (flags' blast radius). */
export async function countPersonsMatching(
  db: Db,
  projectId: number,
  group: FilterGroup,
): Promise<{ matching: number; total: number }> {
  const where = await personsMatchingSql(db, projectId, group);
  const [matching, total] = await Promise.all([countPersons(db, projectId, where), projectPersonCount(db, projectId)]);
  return { matching, total };
}

/** How many persons a project has, kept by triggers (drizzle/0008) rather than counted. */
export async function projectPersonCount(db: Db, projectId: number): Promise<number> {
  const row = await db.get<{ n: number } | undefined>(
    sql`SELECT persons AS n FROM person_counts WHERE project_id = ${projectId}`,
  );
  return row?.n ?? 0;
}

/** How many of a project's persons satisfy `where` (a condition over the `persons` table). */
export const countPersons = (db: Db, projectId: number, where: SQL): Promise<number> =>
  countPersonsWhere(db, and(eq(persons.projectId, projectId), where));

/** How many persons `where` selects, the project condition included in it (the list may check it per person). */
export async function countPersonsWhere(db: Db, where: SQL | undefined): Promise<number> {
  return (await db.select({ n: count() }).from(persons).where(where).get())?.n ?? 0;
}

/** The persons lists' order: newest first, then highest id (of `table`: persons, or a subquery of it). */
export const listOrder = (table: typeof persons = persons) => [desc(table.createdAt), desc(table.id)];

/** One page of the ids of a project's persons satisfying `where`, newest first, with the total. */
export async function personIdsWhere(db: Db, projectId: number, where: SQL, page: Page) {
  const [rows, total] = await Promise.all([
    db
      .select({ id: persons.id })
      .from(persons)
      .where(and(eq(persons.projectId, projectId), where))
      .orderBy(...listOrder())
      .limit(page.limit)
      .offset(page.offset),
    countPersons(db, projectId, where),
  ]);
  return { ids: rows.map((r) => r.id), count: total };
}

/**
 * A `SELECT` of the ids of a project's persons named by integer id, uuid or distinct id, for a
 * statement that adds them somewhere in the same batch (unknown ones simply match nothing).
 */
export function personIdsNamed(
  projectId: number,
  names: { ids?: number[]; uuids?: string[]; distinctIds?: string[] },
): SQL {
  const json = (values: unknown[] | undefined) => JSON.stringify(values ?? []);
  return sql`SELECT p.id FROM persons p WHERE p.project_id = ${projectId}
    AND (p.id IN (SELECT value FROM json_each(${json(names.ids)}))
      OR p.uuid IN (SELECT value FROM json_each(${json(names.uuids)}))
      OR p.id IN (SELECT d.person_id FROM person_distinct_ids d
        WHERE d.project_id = ${projectId} AND d.distinct_id IN (SELECT value FROM json_each(${json(names.distinctIds)}))))`;
}
