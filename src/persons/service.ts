import { and, eq, sql, type SQL } from "drizzle-orm";
import type { AnalyticsStore } from "../analytics";
import type { PersonsListAnswer } from "../analytics/persons-list";
import type { Db } from "../db/client";
import { persons } from "../db/schema";
import { notFound, validationError } from "../lib/errors";
import { containsText } from "../lib/contains-text";
import { longerThanBytes } from "../lib/text";
import type { Page } from "../lib/pagination";
import type { FilterGroup } from "../shared/filters";
import { countPersonsWhere, listOrder, personsMatchingSql, projectPersonCount } from "./matching";
import { walkCount } from "./list-counts";
import { countMeeting, indexedConditions, personIdsMeeting } from "./property-index";
import type { PersonRow } from "./lookup";
import type { PersonWithIds } from "./serialize";

export interface PersonListQuery {
  distinctId?: string;
  email?: string;
  search?: string;
  filter?: FilterGroup;
}

/**
 * The project's persons matching the query, newest first (then highest id): one page, whether more
 * follow, and their number (see list-counts.ts for when it is remembered rather than counted).
 */
export async function listPersons(
  db: Db,
  projectId: number,
  query: PersonListQuery,
  page: Page,
  store: AnalyticsStore,
) {
  const filter = query.filter ? await personsMatchingSql(db, projectId, query.filter) : undefined;
  const inProject = eq(persons.projectId, projectId);
  const byKey = inProjectByKey(projectId);
  const counting = (where: SQL | undefined) => () => countPersonsWhere(db, where);
  // Counted by reading every match: afresh on a first page, remembered for the pages after it.
  const walked = (where: SQL | undefined) => () =>
    walkCount(JSON.stringify([projectId, query]), page.offset, counting(where));
  const term = query.search?.trim();
  const matches = and(term ? searchedFields(term) : undefined, filter);

  const exact = exactLookups(projectId, query);
  if (exact.length) {
    // A few persons, found and counted through their indexes; the rest narrow them down.
    const where = and(byKey, ...exact, matches);
    return pageAndCount(db, page, where, counting(where));
  }
  if (term || filter) {
    // An engine with a persons mirror (ClickHouse) finds the page; D1, the authority, gives its rows.
    const mirrored = await store.personsList({ projectId, search: term, filter: query.filter, rows: page });
    if (mirrored) return stillMatching(db, projectId, mirrored, matches);
  }
  if (term) {
    // A search of three characters or more finds its candidates in the trigram index; when they
    // are many (a term most persons hold), the list order is walked instead, as for a shorter term.
    const pattern = searchCandidates(term);
    if (!pattern) return pageAndCount(db, page, and(inProject, matches), walked(and(inProject, matches)));
    const candidates = and(
      byKey,
      sql`${persons.id} IN (SELECT rowid FROM person_search WHERE terms LIKE ${pattern})`,
      matches,
    );
    const many = await manySearchCandidates(db, projectId, pattern, page);
    const read = many
      ? { projectId, matches, budget: 2 * many.enough, persons: many.persons, otherwise: candidates }
      : candidates;
    return pageAndCount(db, page, read, walked(candidates));
  }
  if (!filter) return pageAndCount(db, page, inProject, () => projectPersonCount(db, projectId));
  const indexed = indexedConditions(query.filter!);
  if (!indexed.conditions.length) return pageAndCount(db, page, and(inProject, filter), walked(and(inProject, filter)));

  // The property index says how many persons meet each condition it answers: the fewest are the
  // candidates. Reading them and sorting costs about their number; walking the list order until
  // the page is full costs about (offset + limit) × persons / candidates rows, each one's JSON read.
  const stats = await db.get<Record<string, number | null>>(
    sql`SELECT (SELECT persons FROM person_counts WHERE project_id = ${projectId}) AS total,
      ${sql.join(
        indexed.conditions.map((c, i) => sql`${countMeeting(projectId, c)} AS ${sql.raw(`c${i}`)}`),
        sql`, `,
      )}`,
  );
  const counts = indexed.conditions.map((_, i) => stats[`c${i}`] ?? 0);
  const fewest = counts.indexOf(Math.min(...counts));
  const candidates = counts[fewest];
  const byCandidates = and(
    byKey,
    sql`${persons.id} IN (${personIdsMeeting(projectId, indexed.conditions[fewest])})`,
    filter,
  );
  const projectPersons = stats.total ?? 0;
  const read = walkIsCheaper(candidates, page, projectPersons)
    ? { projectId, matches: filter, budget: 2 * candidates, persons: projectPersons, otherwise: byCandidates }
    : byCandidates;
  // One condition that is the whole filter: the index has counted its persons already.
  const total = indexed.whole && counts.length === 1 ? async () => candidates : walked(byCandidates);
  return pageAndCount(db, page, read, total);
}

/**
 * The rows of a page found in a persons mirror that D1 still holds and that still match (`matches`,
 * over `persons`), in list order: a person the mirror has not caught up with yet (a change, a
 * deletion still in the events queue) is left out rather than shown as they were.
 */
async function stillMatching(db: Db, projectId: number, page: PersonsListAnswer, matches: SQL | undefined) {
  return { rows: await getPersonsByIds(db, projectId, page.ids, matches), count: page.count, more: page.more };
}

/**
 * The condition that a person named by key (an id, an index's candidates) is the project's: `+`
 * keeps SQLite, which has no statistics on D1, from reading every person of the project through a
 * `project_id` index instead and checking each against the keys.
 */
const inProjectByKey = (projectId: number) => sql`+${persons.projectId} = ${projectId}`;

/**
 * Whether walking the list order until the page is full (about (offset + limit) × persons /
 * candidates rows, each one read) costs more than reading `candidates` persons by key and sorting them.
 * It supposes the matches spread through the list; when they do not (the oldest persons hold a
 * value, another project holds a searched term), the walk stops at its budget (a Walk).
 */
const walkIsCheaper = (candidates: number, page: Page, persons: number) =>
  candidates * candidates > (page.offset + page.limit) * persons;

/**
 * Whether a search's candidates in the trigram index are too many to read (walkIsCheaper): they are
 * counted only up to the number past which walking wins, so a common term costs little to ask about.
 */
async function manySearchCandidates(db: Db, projectId: number, pattern: string, page: Page) {
  const persons = await projectPersonCount(db, projectId);
  const enough = Math.ceil(Math.sqrt((page.offset + page.limit) * persons)) + 1;
  const row = await db.get<{ n: number }>(
    sql`SELECT count(*) AS n FROM (SELECT 1 FROM person_search WHERE terms LIKE ${pattern} LIMIT ${enough})`,
  );
  return walkIsCheaper(row.n, page, persons) ? { enough, persons } : undefined;
}

/** The query's `distinct_id` and `email` conditions, each through an index; none without them. */
function exactLookups(projectId: number, query: PersonListQuery): SQL[] {
  const conditions: SQL[] = [];
  if (query.distinctId !== undefined)
    conditions.push(
      sql`${persons.id} IN (SELECT person_id FROM person_distinct_ids WHERE project_id = ${projectId} AND distinct_id = ${query.distinctId})`,
    );
  if (query.email !== undefined)
    conditions.push(
      sql`${persons.id} IN (SELECT id FROM persons WHERE project_id = ${projectId} AND json_extract(properties, '$.email') = ${query.email})`,
    );
  return conditions;
}

/** A search's meaning (PostHog's): the term in the email, the name, the uuid or any distinct id, ignoring ASCII case. */
const searchedFields = (term: string) =>
  sql`(${containsText(sql`json_extract(${persons.properties}, '$.email')`, term)}
      OR ${containsText(sql`json_extract(${persons.properties}, '$.name')`, term)}
      OR ${containsText(persons.uuid, term)}
      OR EXISTS (SELECT 1 FROM person_distinct_ids d WHERE d.person_id = ${persons.id} AND ${containsText(sql`d.distinct_id`, term)}))`;

/**
 * A walk of the list order: the persons `matches` selects among the project's first `budget` (of
 * `persons`); when those hold fewer than the page needs and the project has more, the page is read
 * from `otherwise` (the same persons, found by key), so a walk never costs more than its budget.
 */
interface Walk {
  projectId: number;
  matches: SQL | undefined;
  budget: number;
  persons: number;
  otherwise: SQL | undefined;
}

/**
 * A page of the persons `read` selects (a condition, or a Walk), in list order, whether more follow
 * (one row read past it), and `count()`.
 */
async function pageAndCount(db: Db, page: Page, read: SQL | undefined | Walk, count: () => Promise<number>) {
  const [rows, total] = await Promise.all([pageRows(db, page, read), count()]);
  const more = rows.length > page.limit;
  return { rows: await withDistinctIds(db, rows.slice(0, page.limit)), count: total, more };
}

async function pageRows(db: Db, page: Page, read: SQL | undefined | Walk): Promise<PersonRow[]> {
  const inOrder = (where: SQL | undefined, from: typeof persons = persons) =>
    db
      .select()
      .from(from)
      .where(where)
      .orderBy(...listOrder(from))
      .limit(page.limit + 1)
      .offset(page.offset);
  if (!read || !("budget" in read)) return inOrder(read);
  // The project's first persons in list order, under the table's own name, so that `matches`
  // (written over `persons`) reads them.
  const first = db
    .select()
    .from(persons)
    .where(eq(persons.projectId, read.projectId))
    .orderBy(...listOrder())
    .limit(read.budget)
    .as("persons");
  const rows = await inOrder(read.matches, first as unknown as typeof persons);
  const complete = rows.length > page.limit || read.persons <= read.budget;
  return complete ? rows : inOrder(read.otherwise);
}

/** D1 refuses LIKE patterns over 50 bytes: the candidates' pattern holds at most this much of the term. */
const MAX_PATTERN_BYTES = 48;

/**
 * The LIKE pattern finding a search's candidates in `person_search` (migration 0007): the term's
 * longest run without `%` and `_` (LIKE's wildcards), cut to fit, so any person holding the term is a
 * candidate; none when that run is under three characters (no trigram to look up: those persons are
 * read in list order). The fields themselves then decide.
 */
function searchCandidates(term: string): string | undefined {
  const run = term
    .split(/[%_]/)
    .reduce((longest, part) => ([...part].length > [...longest].length ? part : longest), "");
  let kept = "";
  for (const char of run) {
    if (longerThanBytes(`%${kept}${char}%`, MAX_PATTERN_BYTES)) break;
    kept += char;
  }
  return [...kept].length >= 3 ? `%${kept}%` : undefined;
}

/** Attaches each person's distinct ids (insertion order) in one query. */
export async function withDistinctIds(db: Db, rows: PersonRow[]): Promise<PersonWithIds[]> {
  if (!rows.length) return [];
  // json_each drives the join (CROSS JOIN keeps it outer), so only these persons' rows are read.
  const links = await db.all<{ personId: number; distinctId: string }>(sql`
    SELECT d.person_id AS personId, d.distinct_id AS distinctId
    FROM json_each(${JSON.stringify(rows.map((r) => r.id))}) j
    CROSS JOIN person_distinct_ids d ON d.person_id = j.value
    ORDER BY d.rowid`);
  const byPerson = new Map<number, string[]>();
  for (const l of links) byPerson.set(l.personId, [...(byPerson.get(l.personId) ?? []), l.distinctId]);
  return rows.map((r) => ({ ...r, distinctIds: byPerson.get(r.id) ?? [] }));
}

const UUID = /^\{?(urn:uuid:)?[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\}?$/i;

/** Parses a person path id: an integer primary key or a UUID (PostHog's get_pk_or_uuid); else 400. */
export function parsePersonKey(raw: string): { id: number } | { uuid: string } {
  if (/^\d{1,15}$/.test(raw)) return { id: Number(raw) };
  if (UUID.test(raw)) {
    const hex = raw
      .replace(/^\{?(urn:uuid:)?|\}$/gi, "")
      .replace(/-/g, "")
      .toLowerCase();
    return {
      uuid: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    };
  }
  throw validationError(
    "The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=<id> instead.",
  );
}

export async function getPerson(db: Db, projectId: number, key: string): Promise<PersonWithIds | undefined> {
  const parsed = parsePersonKey(key);
  const row = await db
    .select()
    .from(persons)
    .where(
      and(eq(persons.projectId, projectId), "id" in parsed ? eq(persons.id, parsed.id) : eq(persons.uuid, parsed.uuid)),
    )
    .get();
  return row ? (await withDistinctIds(db, [row]))[0] : undefined;
}

/** The person of an id or uuid in the path or query, or a 404. */
export async function requirePerson(db: Db, projectId: number, key: string): Promise<PersonWithIds> {
  const person = await getPerson(db, projectId, key);
  if (!person) throw notFound();
  return person;
}

/** The project's persons of these ids (that also meet `where`, when given), in list order, with their distinct ids. */
export async function getPersonsByIds(db: Db, projectId: number, ids: number[], where?: SQL): Promise<PersonWithIds[]> {
  // With a condition the statement runs even for no ids: D1 refusing it (a cohort too large to
  // evaluate) is the answer, as it is when D1 lists the persons itself.
  if (!ids.length && !where) return [];
  // One JSON value rather than one bound parameter per id (D1 allows 100 per statement).
  const rows = await db
    .select()
    .from(persons)
    .where(
      and(
        inProjectByKey(projectId),
        sql`${persons.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`,
        where,
      ),
    )
    .orderBy(...listOrder());
  return withDistinctIds(db, rows);
}
