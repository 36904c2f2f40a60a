import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { validationError } from "../../lib/errors";
import { type CohortSql, compileFilterGroup, type FilterTarget } from "../filters/compile";
import { cohortIdsIn, type FilterGroup } from "../filters/types";
import { cohortFilterGroup } from "./definition";
import { liveCohorts, type CohortRow } from "./reads";

/**
 * Builds the SQL of "person is in cohort N" for a project's cohorts: static cohorts read their
 * explicit members, dynamic ones compile their filters over the person's properties (nesting
 * other cohorts). An unknown or deleted cohort has no members; a cycle of cohorts is a 400.
 */
export async function cohortMembershipSql(db: Db, projectId: number): Promise<CohortSql> {
  const cohorts = new Map((await liveCohorts(db, projectId)).map((c) => [c.id, c]));
  return membershipOver(projectId, cohorts);
}

export function membershipOver(projectId: number, cohorts: Map<number, CohortRow>): CohortSql {
  const stack: number[] = [];
  const member: CohortSql = (cohortId, personId) => {
    const cohort = cohorts.get(cohortId);
    if (!cohort) return sql`0`;
    if (cohort.isStatic)
      return sql`(${personId} IN (SELECT person_id FROM cohort_people WHERE cohort_id = ${cohortId}))`;
    if (stack.includes(cohortId))
      throw validationError(`Cohort ${cohortId} refers to itself through its filters.`, "filters");
    stack.push(cohortId);
    try {
      const alias = `cp${stack.length}`;
      const inner = compileFilterGroup(
        cohortFilterGroup(cohort.filters),
        { personProperties: sql.raw(`${alias}.properties`), personId: sql.raw(`${alias}.id`) },
        member,
      );
      return sql`(${personId} IN (SELECT ${sql.raw(alias)}.id FROM persons ${sql.raw(alias)} WHERE ${sql.raw(alias)}.project_id = ${projectId} AND ${inner}))`;
    } finally {
      stack.pop();
    }
  };
  return member;
}

/** The WHERE fragment of a filter group for a target, loading cohort definitions only when referenced. */
export async function filterSql(db: Db, projectId: number, group: FilterGroup, target: FilterTarget): Promise<SQL> {
  const cohortSql = cohortIdsIn(group).length ? await cohortMembershipSql(db, projectId) : noCohorts;
  return compileFilterGroup(group, target, cohortSql);
}

const noCohorts = () => {
  throw new Error("cohort filter compiled without cohort definitions");
};
