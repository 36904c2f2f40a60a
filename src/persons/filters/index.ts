/**
 * The property-filter matcher: PostHog property filters compiled to SQL over JSON property columns.
 *
 *   const group = parseFilterGroup(json, "properties");          // validate (400 on bad input)
 *   const where = await filterSql(db, projectId, group, { personProperties: sql`persons.properties`, personId: sql`persons.id` });
 *   db.select().from(persons).where(and(eq(persons.projectId, projectId), where));
 *
 * For events pass `eventProperties` (and `personProperties` / `personId` of the joined person).
 */
import { and, count, eq, sql, type SQL } from "drizzle-orm";
import { cohortMembershipSql } from "../../cohorts/membership";
import type { Db } from "../../db/client";
import { persons } from "../../db/schema";
import { compileFilterGroup, type FilterTarget } from "./compile";
import { cohortIdsIn, type FilterGroup } from "./types";

export { compileFilterGroup, type CohortSql, type FilterTarget } from "./compile";
export {
  cohortIdsIn,
  isGroup,
  OPERATORS,
  parseFilterGroup,
  type FilterGroup,
  type FilterKind,
  type Operator,
  type PropertyFilter,
} from "./types";

/** The WHERE fragment of a filter group for a target, loading cohort definitions only when referenced. */
export async function filterSql(db: Db, projectId: number, group: FilterGroup, target: FilterTarget): Promise<SQL> {
  const cohortSql = cohortIdsIn(group).length ? await cohortMembershipSql(db, projectId) : noCohorts;
  return compileFilterGroup(group, target, cohortSql);
}

/** The target for filters over the `persons` table itself. */
export const PERSONS_TARGET: FilterTarget = {
  personProperties: sql`${persons.properties}`,
  personId: sql`${persons.id}`,
};

/** How many of a project's persons match a filter group, and how many persons it has (flags' blast radius). */
export async function countPersonsMatching(
  db: Db,
  projectId: number,
  group: FilterGroup,
): Promise<{ matching: number; total: number }> {
  const where = await filterSql(db, projectId, group, PERSONS_TARGET);
  const [matching, total] = await Promise.all([
    db
      .select({ n: count() })
      .from(persons)
      .where(and(eq(persons.projectId, projectId), where))
      .get(),
    db.select({ n: count() }).from(persons).where(eq(persons.projectId, projectId)).get(),
  ]);
  return { matching: matching?.n ?? 0, total: total?.n ?? 0 };
}

const noCohorts = () => {
  throw new Error("cohort filter compiled without cohort definitions");
};
