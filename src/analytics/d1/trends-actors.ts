import type { D1Client } from "../../db/client";
import type { CohortSql } from "../../shared/filters";
import { Params } from "../../lib/sql";
import { type ActorEvents, pointWindows, type TrendsActorsQuery } from "../queries";
import { runAll } from "./run";
import { firstsCte, seriesParts } from "./trends";
import { inWindows, windowsCte } from "./windows";

/**
 * The persons of one point of a trends series on D1: the series' events (matched as trendsRows
 * matches them) in the point's windows and breakdown value, grouped by person.
 */
export async function trendsActorsOnD1(
  d1: D1Client,
  query: TrendsActorsQuery,
  cohorts: CohortSql,
): Promise<ActorEvents[]> {
  const { question, breakdownValue, rows } = query;
  const params = new Params();
  const p = seriesParts(question, params, cohorts);
  const windows = windowsCte("windows", pointWindows(query), params);
  const ctes =
    question.aggregate.kind === "firstTime"
      ? [
          windows,
          firstsCte(p, !!question.aggregate.matchingFilters),
          `matched AS (SELECT f.pid AS pid, f.bv AS bv FROM firsts f JOIN windows w ON f.t >= w.s AND f.t < w.e
            WHERE f.n = 1 AND f.ok)`,
        ]
      : [
          windows,
          `matched AS (SELECT x.person_id AS pid, ${p.value} AS bv ${inWindows("windows", p.named, p.project, p.match)})`,
        ];
  // A breakdown value compared key by key (a null key is no value), so texts are compared as texts.
  const keys = question.breakdown?.keys ?? [];
  const sameValue = (other: string) =>
    keys.map((_, i) => `json_extract(m.bv, '$[${i}]') IS json_extract(${other}, '$[${i}]')`).join(" AND ") || "1";
  const inValue = !breakdownValue
    ? "1"
    : "is" in breakdownValue
      ? sameValue(params.bind(JSON.stringify(breakdownValue.is)))
      : `NOT EXISTS (SELECT 1 FROM json_each(${params.bind(JSON.stringify(breakdownValue.notIn))}) v WHERE ${sameValue("v.value")})`;
  const order = query.byEvents ? "events DESC, pid" : "pid";
  const sql = `WITH ${ctes.join(", ")}
    SELECT m.pid AS pid, count(*) AS events FROM matched m
    WHERE m.pid IS NOT NULL AND ${inValue}
    GROUP BY m.pid ORDER BY ${order} LIMIT ${params.bind(rows.limit)} OFFSET ${params.bind(rows.offset)}`;
  const found = await runAll<{ pid: number; events: number }>(d1, sql, params);
  return found.map((r) => ({ personId: r.pid, events: r.events }));
}
