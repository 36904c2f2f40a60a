import type { ClickHouseClient } from "@clickhouse/client-web";
import type { PersonsListAnswer, PersonsListQuestion } from "../persons-list";
import { analysisRows } from "./analysis-run";
import { ClickHouseParams } from "./params";
import { type ClickHouseCohorts, type ClickHouseFilterColumns, groupSql } from "./property-filters";

/** Bits of the list's sort key that hold the D1 id (below created_at's microseconds). */
const ID_BITS = 40;
const ID_MASK = 2 ** ID_BITS - 1;

/**
 * A mirrored person's columns as the filter compiler reads them: their properties, the hashes of
 * them (clickhouse/migrations/0005) and their uuid (no event).
 */
const PERSON_COLUMNS: ClickHouseFilterColumns = {
  event: "''",
  person: "properties",
  personId: "id",
  personHashes: { keys: "property_keys", values: "property_values" },
};

/**
 * The persons list from the persons mirror (`person`, the latest version of each person through
 * FINAL), with D1's meaning: the filter compiled as for cohorts, the search as persons/service.ts
 * searches (PostHog's: the term in the email, the name, the uuid or a current distinct id, ignoring
 * ASCII case), in D1's list order (created_at, newest first, then the highest D1 id). One pass
 * counts the matches and keeps the page's ids (one past the page, for `more`).
 */
export async function personsListOnClickHouse(
  client: ClickHouseClient,
  question: PersonsListQuestion,
  cohorts: ClickHouseCohorts,
): Promise<PersonsListAnswer> {
  const { sql, params } = personsListStatement(question, cohorts);
  const [row] = await analysisRows<{ total: number; page: number[] }>(client, sql, params);
  const ids = (row?.page ?? []).map(Number);
  const { limit } = question.rows;
  return { ids: ids.slice(0, limit), more: ids.length > limit, count: Number(row?.total ?? 0) };
}

/** The statement of personsListOnClickHouse, with its parameters (tests read its plan). */
export function personsListStatement(question: PersonsListQuestion, cohorts: ClickHouseCohorts) {
  const params = new ClickHouseParams(question.projectId);
  const conditions = [
    question.filter ? `ifNull(${groupSql(question.filter, PERSON_COLUMNS, params, cohorts)}, 0)` : "1",
    question.search === undefined ? "1" : searched(question.search, params.text(question.search), params),
  ];
  const { offset, limit } = question.rows;
  // The sorted array keeps only the first offset + limit + 1 matches (both validated integers), by one
  // Int128 per person, created_at's microseconds above the D1 id, negated for newest first: sorting
  // one number is about twice as fast as sorting a (time, id) tuple. D1 ids stay below 2^40.
  // A filter read before FINAL could match an older version of a person (hence no PREWHERE); d1_id 0
  // marks a version mirrored before D1 ids were (ClickHouse migration 0003).
  const sql = `SELECT count() AS total,
      arrayMap(k -> toInt64(bitAnd(-k, ${ID_MASK})), arraySlice(groupArraySorted(${offset + limit + 1})(
        -(bitShiftLeft(toInt128(toUnixTimestamp64Micro(created_at)), ${ID_BITS}) + d1_id)), ${offset + 1})) AS page
    FROM person FINAL
    WHERE team_id = ${params.team} AND is_deleted = 0 AND d1_id != 0 AND ${conditions.join(" AND ")}
    SETTINGS optimize_move_to_prewhere_if_final = 0`;
  return { sql, params };
}

/**
 * The search: `term` (bound as `bound`) in the email or name as SQLite's json_extract gives them
 * (the mirror's `search_email` and `search_name`, clickhouse/migrations/0005), the uuid, or any
 * distinct id the person holds now. positionCaseInsensitive, like SQLite's lower(), folds ASCII
 * letters only. A uuid's text is hexadecimal digits and dashes: a term with anything else cannot be
 * in it, and ten million uuids are not turned into text to find that out.
 */
function searched(term: string, bound: string, params: ClickHouseParams): string {
  const has = (text: string) => `ifNull(positionCaseInsensitive(${text}, ${bound}) > 0, 0)`;
  const fields = [has("search_email"), has("search_name")];
  if (/^[0-9a-f-]+$/i.test(term)) fields.push(has("toString(id)"));
  // The same test as a LIKE over lower() (ASCII, like positionCaseInsensitive), which the distinct ids'
  // trigram index (migration 0005) can answer.
  const pattern = params.text(`%${asciiLower(term).replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  fields.push(`id IN (SELECT person_id FROM person_distinct_id2 FINAL
      WHERE team_id = ${params.team} AND is_deleted = 0 AND lower(distinct_id) LIKE ${pattern}
      SETTINGS optimize_move_to_prewhere_if_final = 0)`);
  return `(${fields.join(" OR ")})`;
}

/** ASCII letters lowered, nothing else (what SQLite's lower() and ClickHouse's lower() do). */
const asciiLower = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());
