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

/** Matches a one-pass page keeps sorted at most (offset + limit + 1); a deeper page sorts apart. */
const MAX_KEPT = 100_000;

/** Persons found by distinct id that a search binds into its statement; past this, a subquery finds them. */
const MAX_HOLDERS = 1_000;

/**
 * The persons list from the persons mirror (`person`, the latest version of each person through
 * FINAL), with D1's meaning: the filter compiled as for cohorts, the search as persons/service.ts
 * searches (PostHog's: the term in the email, the name, the uuid or a current distinct id, ignoring
 * ASCII case), in D1's list order (created_at, newest first, then the highest D1 id). One pass
 * counts the matches and keeps the page's ids (one past the page, for `more`), two for a deep page;
 * a search first asks which persons hold a matching distinct id.
 */
export async function personsListOnClickHouse(
  client: ClickHouseClient,
  question: PersonsListQuestion,
  cohorts: ClickHouseCohorts,
): Promise<PersonsListAnswer> {
  const holders = question.search === undefined ? undefined : await distinctIdHolders(client, question);
  const { sql, params } = personsListStatement(question, cohorts, holders);
  const [row] = await analysisRows<{ total: number; page: number[] }>(client, sql, params);
  const ids = (row?.page ?? []).map(Number);
  const { limit } = question.rows;
  return { ids: ids.slice(0, limit), more: ids.length > limit, count: Number(row?.total ?? 0) };
}

/**
 * The statement of personsListOnClickHouse, with its parameters (tests read its plan). `holders`: the
 * uuids of the persons a search finds by distinct id, when known (distinctIdHolders); else the
 * statement finds them itself. `maxKept`: the deepest page read in one pass (tests lower it).
 */
export function personsListStatement(
  question: PersonsListQuestion,
  cohorts: ClickHouseCohorts,
  holders?: string[],
  maxKept = MAX_KEPT,
) {
  const params = new ClickHouseParams(question.projectId);
  const conditions = [
    question.filter ? `ifNull(${groupSql(question.filter, PERSON_COLUMNS, params, cohorts)}, 0)` : "1",
    question.search === undefined ? "1" : searched(question.search, params, holders),
  ];
  const { offset, limit } = question.rows;
  // A filter read before FINAL could match an older version of a person (hence no PREWHERE), and a
  // skip index must not drop a granule holding a newer one (the exact mode keeps every version of the
  // persons it keeps); d1_id 0 marks a version mirrored before D1 ids were (ClickHouse migration 0003).
  const matches = `FROM person FINAL
    WHERE team_id = ${params.team} AND is_deleted = 0 AND d1_id != 0 AND ${conditions.join(" AND ")}`;
  const settings = `SETTINGS optimize_move_to_prewhere_if_final = 0, use_skip_indexes_if_final = 1,
    use_skip_indexes_if_final_exact_mode = 1`;
  // The list order as one Int128 per person, created_at's microseconds above the D1 id (below 2^40),
  // negated for newest first: sorting one number is about twice as fast as sorting a (time, id) pair.
  const key = `-(bitShiftLeft(toInt128(toUnixTimestamp64Micro(created_at)), ${ID_BITS}) + d1_id)`;
  const ids = (keys: string) => `arrayMap(x -> toInt64(bitAnd(-x, ${ID_MASK})), ${keys})`;
  const kept = offset + limit + 1;
  // One pass counts the matches and keeps the first `kept` of them sorted (validated integers).
  const sql =
    kept <= maxKept
      ? `SELECT count() AS total, ${ids(`arraySlice(groupArraySorted(${kept})(${key}), ${offset + 1})`)} AS page
        ${matches} ${settings}`
      : // A deep page: what one pass would keep grows with the offset, so the count and the page are apart.
        `SELECT (SELECT count() ${matches}) AS total, ${ids("arraySort(groupArray(k))")} AS page
        FROM (SELECT ${key} AS k ${matches} ORDER BY k LIMIT ${limit + 1} OFFSET ${offset}) ${settings}`;
  return { sql, params };
}

/**
 * The uuids of the persons holding a distinct id that contains the search term (at most MAX_HOLDERS;
 * undefined when there are more). Asked apart because an `id IN (subquery)` beside the other fields
 * costs a lookup for every person even when the subquery finds none, which it mostly does.
 */
async function distinctIdHolders(client: ClickHouseClient, question: PersonsListQuestion) {
  const params = new ClickHouseParams(question.projectId);
  const rows = await analysisRows<{ person_id: string }>(
    client,
    holdersSql(question.search!, params, `LIMIT ${MAX_HOLDERS + 1}`),
    params,
  );
  return rows.length > MAX_HOLDERS ? undefined : rows.map((r) => r.person_id);
}

/**
 * The distinct ids containing `term`, ignoring ASCII case, as the persons they belong to now: a LIKE
 * over lower() (both fold ASCII letters only, as SQLite's lower() does), which the distinct ids'
 * trigram index (clickhouse/migrations/0005) can answer, the term's LIKE wildcards escaped.
 */
const holdersSql = (term: string, params: ClickHouseParams, limit = "") =>
  `SELECT DISTINCT person_id FROM person_distinct_id2 FINAL
    WHERE team_id = ${params.team} AND is_deleted = 0
      AND lower(distinct_id) LIKE ${params.text(`%${asciiLower(term).replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}
    ${limit} SETTINGS optimize_move_to_prewhere_if_final = 0`;

/**
 * The search: the term in the email or name (the mirror's `search_text`, both as SQLite's
 * json_extract writes them, clickhouse/migrations/0005), the uuid, or any distinct id the person
 * holds now (`holders`, or a subquery when not given). positionCaseInsensitive, like SQLite's
 * lower(), folds ASCII letters only. A uuid's text is hexadecimal digits and dashes: a term with
 * anything else cannot be in it, and ten million uuids are not turned into text to find that out.
 */
function searched(term: string, params: ClickHouseParams, holders: string[] | undefined): string {
  const bound = params.text(term);
  const has = (text: string) => `ifNull(positionCaseInsensitive(${text}, ${bound}) > 0, 0)`;
  // search_text joins the two with a NUL, which a term holding one could match across: such a term
  // reads each from the JSON.
  const fields = term.includes("\0")
    ? [has(sqliteText("email", params)), has(sqliteText("name", params))]
    : [has("search_text")];
  if (/^[0-9a-f-]+$/i.test(term)) fields.push(has("toString(id)"));
  if (!holders) fields.push(`id IN (${holdersSql(term, params)})`);
  else if (holders.length) fields.push(`has(${params.bind(holders, "Array(UUID)")}, id)`);
  return `(${fields.join(" OR ")})`;
}

/** A top-level property as SQLite's json_extract writes it as text; NULL when missing or JSON null. */
function sqliteText(key: string, params: ClickHouseParams): string {
  const k = params.text(key);
  const type = `JSONType(properties, ${k})`;
  return (
    `multiIf(${type} = 'Null', NULL, ${type} = 'String', JSONExtractString(properties, ${k}),` +
    ` ${type} = 'Bool', if(JSONExtractBool(properties, ${k}), '1', '0'), JSONExtractRaw(properties, ${k}))`
  );
}

/** ASCII letters lowered, nothing else (what SQLite's lower() and ClickHouse's lower() do). */
const asciiLower = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());
