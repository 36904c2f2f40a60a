import { and, count, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db/client";
import { cohorts } from "../db/schema";
import { activityEntries, activityEntry } from "../lib/activity-log";
import { actorOf, type Principal } from "../lib/auth/principal";
import { ApiError, notFound, validationError } from "../lib/errors";
import { classifyD1QueryError } from "../analytics/d1/query-errors";
import { countPersons, PERSON_ID, personIdsNamed, personIdsWhere } from "../persons/matching";
import type { Page } from "../lib/pagination";
import { cohortFilterGroup } from "../shared/cohorts/definition";
import { cohortMembershipSql, membershipOver } from "../shared/cohorts/membership";
import { getCohort, liveCohorts, type CohortRow } from "../shared/cohorts/reads";
import { type BatchItem, runBatch } from "../lib/d1";

export interface CohortInput {
  name?: string;
  description?: string;
  isStatic?: boolean;
  filters?: Record<string, unknown>;
  groups?: unknown[];
  deleted?: boolean;
  personIds?: (number | string)[];
  distinctIds?: string[];
}

interface WriteContext {
  /** Called after every committed write: flags embed cohorts in their cached definitions. */
  refreshFlagDefinitions: (projectId: number) => Promise<void>;
  db: Db;
  projectId: number;
  principal: Principal;
}

/** The stored `filters` of a definition: `filters`, else the legacy `groups` converted. */
function storedFilters(input: CohortInput): Record<string, unknown> | undefined {
  if (input.filters !== undefined) return input.filters;
  if (input.groups !== undefined) return { groups: input.groups };
  return undefined;
}

/** Refuses a dynamic definition the matcher cannot evaluate (bad filters, a cycle through cohorts). */
async function validateDefinition(db: Db, projectId: number, row: CohortRow) {
  if (row.isStatic) return;
  cohortFilterGroup(row.filters);
  const all = new Map((await liveCohorts(db, projectId)).map((c) => [c.id, c]));
  all.set(row.id, row);
  const member = membershipOver(projectId, all)(row.id, sql`0`);
  // D1 prepares what reads will run, without running it: a definition it refuses (a statement too
  // long, or with too many values) is this write's 400 instead of a failure of every later read.
  await db.all(sql`EXPLAIN SELECT ${member}`).catch((err: unknown) => {
    const reason = unevaluableReason(err);
    if (reason !== undefined) throw validationError(`This cohort's filters cannot be evaluated: ${reason}`, "filters");
    throw err;
  });
}

/**
 * Every cohort write goes through here: the cohort row, its static members and the activity entry
 * are written in one batch, then the flags' cached definitions are rebuilt.
 */
async function commit(ctx: WriteContext, statements: BatchItem[]) {
  const results = await runBatch(ctx.db, statements);
  await ctx.refreshFlagDefinitions(ctx.projectId);
  return results;
}

export async function createCohort(ctx: WriteContext, input: CohortInput): Promise<CohortRow> {
  const isStatic = input.isStatic ?? false;
  const filters = storedFilters(input) ?? {};
  if (!isStatic && !Object.keys(filters).length) throw validationError("A dynamic cohort needs filters.", "filters");
  if (!isStatic && (input.personIds || input.distinctIds))
    throw validationError("Only static cohorts take explicit members.", "person_ids");
  const draft = {
    id: -1,
    projectId: ctx.projectId,
    name: input.name ?? "",
    description: input.description ?? "",
    filters,
    isStatic,
  } as CohortRow;
  await validateDefinition(ctx.db, ctx.projectId, draft);
  const now = new Date().toISOString();
  // Cohort, members and activity entry in one transaction; within it the new cohort is the project's highest id.
  const newId = sql`(SELECT max(id) FROM cohorts WHERE project_id = ${ctx.projectId})`;
  const results = await commit(ctx, [
    ctx.db
      .insert(cohorts)
      .values({
        projectId: ctx.projectId,
        name: draft.name,
        description: draft.description,
        filters,
        isStatic,
        createdBy: JSON.stringify(actorOf(ctx.principal)),
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: cohorts.id }),
    ...memberStatements(ctx.projectId, newId, input),
    activityEntries(
      [
        {
          projectId: ctx.projectId,
          scope: "Cohort",
          itemId: 0,
          activity: "created",
          principal: ctx.principal,
          name: draft.name,
        },
      ],
      newId,
    ),
  ]);
  const id = (results[0].results[0] as { id: number }).id;
  return (await getCohort(ctx.db, ctx.projectId, id))!;
}

export async function updateCohort(ctx: WriteContext, id: number, input: CohortInput): Promise<CohortRow> {
  const current = await getCohort(ctx.db, ctx.projectId, id);
  if (!current || current.deleted) throw notFound();
  if (!current.isStatic && (input.personIds || input.distinctIds))
    throw validationError("Only static cohorts take explicit members.", "person_ids");
  const filters = storedFilters(input);
  const next: CohortRow = {
    ...current,
    name: input.name ?? current.name,
    description: input.description ?? current.description,
    filters: filters ?? current.filters,
    deleted: input.deleted ?? current.deleted,
  };
  if (filters !== undefined) await validateDefinition(ctx.db, ctx.projectId, next);
  const changes = (["name", "description", "filters", "deleted"] as const)
    .filter((k) => JSON.stringify(current[k]) !== JSON.stringify(next[k]))
    .map((field) => ({
      type: "Cohort" as const,
      action: "changed" as const,
      field,
      before: current[field],
      after: next[field],
    }));
  const version = current.version + (filters !== undefined ? 1 : 0);
  await commit(ctx, [
    ctx.db
      .update(cohorts)
      .set({
        name: next.name,
        description: next.description,
        filters: next.filters,
        deleted: next.deleted,
        version,
        updatedAt: new Date().toISOString(),
      })
      .where(and(eq(cohorts.projectId, ctx.projectId), eq(cohorts.id, id))),
    ...memberStatements(ctx.projectId, id, input),
    activityEntry(ctx.db, {
      projectId: ctx.projectId,
      scope: "Cohort",
      itemId: id,
      activity: next.deleted && !current.deleted ? "deleted" : "updated",
      principal: ctx.principal,
      name: next.name,
      changes,
    }),
  ]);
  return { ...next, version };
}

export const deleteCohort = (ctx: WriteContext, id: number) => updateCohort(ctx, id, { deleted: true });

/** Adds static members by integer id, uuid or distinct id (unknown ones are ignored, as PostHog does). */
function memberStatements(projectId: number, cohortId: number | SQL, input: CohortInput) {
  const keys = (input.personIds ?? []).map(String);
  const ids = keys.filter((v) => /^\d+$/.test(v)).map(Number);
  const uuids = keys.filter((v) => !/^\d+$/.test(v)).map((v) => v.toLowerCase());
  if (!ids.length && !uuids.length && !input.distinctIds?.length) return [];
  const members = personIdsNamed(projectId, { ids, uuids, distinctIds: input.distinctIds });
  return [sql`INSERT OR IGNORE INTO cohort_people (cohort_id, person_id) SELECT ${cohortId}, id FROM (${members})`];
}

export async function listCohorts(db: Db, projectId: number, page: Page) {
  const where = and(eq(cohorts.projectId, projectId), eq(cohorts.deleted, false));
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(cohorts)
      .where(where)
      .orderBy(desc(cohorts.createdAt), desc(cohorts.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(cohorts).where(where).get(),
  ]);
  return { rows, count: total?.n ?? 0 };
}

/**
 * The member count of one cohort, computed now (dynamic cohorts are not precalculated here); null
 * when the stored cohort cannot be evaluated (logged).
 */
export function memberCount(db: Db, projectId: number, cohort: CohortRow): Promise<number | null> {
  return evaluating(
    cohort,
    async () => countPersons(db, projectId, (await cohortMembershipSql(db, projectId))(cohort.id, PERSON_ID)),
    () => null,
  );
}

/**
 * The live cohorts the person belongs to now. A cohort that cannot be evaluated (a definition stored
 * before today's validation, or one D1 refuses to run) is left out and logged: it never takes the
 * answer for the other cohorts down with it, as a flag that fails to evaluate leaves the others.
 */
export async function cohortsContainingPerson(db: Db, projectId: number, personId: number): Promise<CohortRow[]> {
  const live = await liveCohorts(db, projectId);
  if (!live.length) return [];
  const member = membershipOver(projectId, new Map(live.map((c) => [c.id, c])));
  const checks: { cohort: CohortRow; statement: SQL }[] = [];
  for (const cohort of live) {
    const statement = await evaluating(
      cohort,
      async () => sql`SELECT ${member(cohort.id, sql`${personId}`)} AS n`,
      () => undefined,
    );
    if (statement) checks.push({ cohort, statement });
  }
  // One round trip: a statement per cohort in one batch.
  const hits = await runBatch<{ n: number }>(
    db,
    checks.map((c) => c.statement),
  ).catch(async () => {
    // A failed statement fails the whole batch: run them one by one, leaving out those D1 refuses
    // for what they are (an outage fails them all and is the caller's 5xx).
    return Promise.all(
      checks.map(({ cohort, statement }) =>
        evaluating(
          cohort,
          async () => (await runBatch<{ n: number }>(db, [statement]))[0],
          () => undefined,
        ),
      ),
    );
  });
  return checks.filter((_, i) => hits[i]?.results[0]?.n).map((c) => c.cohort);
}

/**
 * Runs `work` on a stored cohort; when the cohort cannot be evaluated (unevaluableReason) the
 * reason is logged and `unevaluable` answers instead.
 */
async function evaluating<T>(
  cohort: CohortRow,
  work: () => Promise<T>,
  unevaluable: (reason: string) => T,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const reason = unevaluableReason(err);
    if (reason === undefined) throw err;
    console.warn(`cohort ${cohort.id} of project ${cohort.projectId} cannot be evaluated: ${reason}`);
    return unevaluable(reason);
  }
}

/**
 * Why a cohort cannot be evaluated, when that is what an error says: its definition's 400 (found
 * while compiling it), or D1 refusing the statement for what it is. Undefined for anything else (an
 * outage), which stays the caller's failure.
 */
function unevaluableReason(err: unknown): string | undefined {
  if (err instanceof ApiError) return err.status === 400 ? err.detail : undefined;
  const failure = classifyD1QueryError(err);
  return failure.kind === "query" ? `${failure.message}.` : undefined;
}

/** A page of the cohort's members; a stored cohort that cannot be evaluated is a 400 saying why. */
export function cohortMemberIds(db: Db, projectId: number, cohort: CohortRow, page: Page) {
  return evaluating(
    cohort,
    async () => personIdsWhere(db, projectId, (await cohortMembershipSql(db, projectId))(cohort.id, PERSON_ID), page),
    (reason) => {
      throw validationError(`Cohort ${cohort.id} cannot be evaluated: ${reason} Update its filters.`, "filters");
    },
  );
}
