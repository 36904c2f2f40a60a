import type { ClickHouseClient } from "@clickhouse/client-web";
import type { PersonsListAnswer, PersonsListQuestion } from "../persons-list";
import { analysisRows } from "./analysis-run";
import { ClickHouseParams } from "./params";
import { type ClickHouseCohorts, type ClickHouseFilterColumns, groupSql } from "./property-filters";

/** A mirrored person's columns as the filter compiler reads them: their properties and uuid (no event). */
const PERSON_COLUMNS: ClickHouseFilterColumns = { event: "''", person: "properties", personId: "id" };

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
  const params = new ClickHouseParams(question.projectId);
  const conditions = [
    question.filter ? `ifNull(${groupSql(question.filter, PERSON_COLUMNS, params, cohorts)}, 0)` : "1",
    question.search === undefined ? "1" : searched(params.text(question.search), params),
  ];
  const { offset, limit } = question.rows;
  // The sorted array keeps only the first offset + limit + 1 of the matches (both validated integers).
  const kept = offset + limit + 1;
  const [row] = await analysisRows<{ total: number; page: [number, number][] }>(
    client,
    `SELECT count() AS total,
      arraySlice(groupArraySorted(${kept})((-toUnixTimestamp64Micro(created_at), -d1_id)), ${offset + 1}) AS page
    FROM person FINAL
    WHERE team_id = ${params.team} AND is_deleted = 0 AND d1_id != 0 AND ${conditions.join(" AND ")}
    SETTINGS optimize_move_to_prewhere_if_final = 0`,
    params,
  );
  // A filter read before FINAL could match an older version of a person (hence no PREWHERE); d1_id 0
  // marks a version mirrored before D1 ids were (ClickHouse migration 0003).
  const ids = (row?.page ?? []).map(([, negatedId]) => -Number(negatedId));
  return { ids: ids.slice(0, limit), more: ids.length > limit, count: Number(row?.total ?? 0) };
}

/**
 * The search: `term` (a bound parameter) in the email or name as SQLite's json_extract gives them
 * (a string as itself, true/false as 1/0, a number or object as JSON), the uuid, or any distinct id
 * the person holds now. positionCaseInsensitive, like SQLite's lower(), folds ASCII letters only.
 */
function searched(term: string, params: ClickHouseParams): string {
  const has = (text: string) => `ifNull(positionCaseInsensitive(${text}, ${term}) > 0, 0)`;
  return `(${has(sqliteText("email", params))} OR ${has(sqliteText("name", params))} OR ${has("toString(id)")}
    OR id IN (SELECT person_id FROM person_distinct_id2 FINAL
      WHERE team_id = ${params.team} AND is_deleted = 0 AND positionCaseInsensitive(distinct_id, ${term}) > 0
      SETTINGS optimize_move_to_prewhere_if_final = 0))`;
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
