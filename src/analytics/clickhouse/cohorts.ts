import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { cohortPeople, persons } from "../../db/schema";
import { validationError } from "../../lib/errors";
import { cohortFilterGroup } from "../../shared/cohorts/definition";
import { liveCohorts } from "../../shared/cohorts/reads";
import { type ClickHouseCohorts, type ClickHouseFilterColumns, groupSql } from "./property-filters";

/**
 * The project's cohorts for ClickHouse filters, loaded from D1 (authoritative for cohorts and
 * persons), with D1's membership (src/shared/cohorts/membership.ts): a static cohort's members by
 * uuid (bound as one array), a dynamic cohort's filters evaluated on the person's own properties
 * (nested cohorts likewise; a cycle is D1's 400); an unknown or deleted cohort has no members.
 */
export async function clickhouseCohorts(db: Db, projectId: number): Promise<ClickHouseCohorts> {
  const cohorts = new Map((await liveCohorts(db, projectId)).map((c) => [c.id, c]));
  const staticIds = [...cohorts.values()].filter((c) => c.isStatic).map((c) => c.id);
  const members = new Map<number, string[]>();
  if (staticIds.length) {
    const rows = await db
      .select({ cohortId: cohortPeople.cohortId, uuid: persons.uuid })
      .from(cohortPeople)
      .innerJoin(persons, eq(persons.id, cohortPeople.personId))
      .where(and(inArray(cohortPeople.cohortId, staticIds), eq(persons.projectId, projectId)));
    for (const r of rows) members.set(r.cohortId, [...(members.get(r.cohortId) ?? []), r.uuid]);
  }
  const stack: number[] = [];
  const member: ClickHouseCohorts = (cohortId, columns, params) => {
    const cohort = cohorts.get(cohortId);
    if (!cohort) return "0";
    if (cohort.isStatic) return `has(${params.bind(members.get(cohortId) ?? [], "Array(UUID)")}, ${columns.personId})`;
    if (stack.includes(cohortId))
      throw validationError(`Cohort ${cohortId} refers to itself through its filters.`, "filters");
    stack.push(cohortId);
    try {
      // A member only where the rule holds (D1 selects the persons it is true for): unknown is not.
      const person: ClickHouseFilterColumns = { ...columns, event: "''" };
      return `(${columns.person} != '' AND ifNull(${groupSql(cohortFilterGroup(cohort.filters), person, params, member)}, 0))`;
    } finally {
      stack.pop();
    }
  };
  return member;
}

/** For questions without cohort filters. */
export const noClickHouseCohorts: ClickHouseCohorts = () => {
  throw new Error("cohort filter compiled without cohort definitions");
};
