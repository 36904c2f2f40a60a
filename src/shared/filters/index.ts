/**
 * PostHog property filters compiled to SQL over JSON property columns.
 *
 *   const group = parseFilterGroup(json, "properties");          // validate (400 on bad input)
 *   const where = await filterSql(db, projectId, group, { personProperties: sql`persons.properties`, personId: sql`persons.id` });
 *   db.select().from(persons).where(and(eq(persons.projectId, projectId), where));
 *
 * `filterSql` (shared/cohorts/membership.ts) loads cohort definitions when the group refers to
 * cohorts; `compileFilterGroup` is the pure compiler. For events pass `eventProperties` (and
 * `personProperties` / `personId` of the joined person).
 */
export {
  type CohortSql,
  COMPARISONS,
  compileFilterGroup,
  filterDate,
  filterNumber,
  filterValues,
  type FilterTarget,
  regexGlobs,
} from "./compile";
export {
  checkFilterSize,
  cohortIdsIn,
  type FilterGroup,
  type FilterKind,
  isGroup,
  OPERATORS,
  type Operator,
  type PropertyFilter,
  parseFilterGroup,
  parseFiltersJson,
} from "./types";
export { withTestAccounts } from "./test-accounts";
