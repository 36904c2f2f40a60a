import type { D1Client } from "../../db/client";
import { Params, PROPERTY_KIND_OF_JSON_EACH } from "../../lib/sql";
import type { EventName, PropertyKeySeen, PropertyKeysQuery } from "../queries";
import { runAll } from "./run";

/**
 * A project's event names, found by seeking the event index from one name to the next (a skip scan:
 * one seek per name, however many events each has), each with its latest timestamp.
 */
export async function eventNames(d1: D1Client, projectId: number, limit: number): Promise<EventName[]> {
  const params = new Params();
  const P = params.bind(projectId);
  const sql = `WITH RECURSIVE names(e, n) AS (
      SELECT (SELECT min(event) FROM events WHERE project_id = ${P}), 1
      UNION ALL
      SELECT (SELECT min(event) FROM events WHERE project_id = ${P} AND event > names.e), n + 1
      FROM names WHERE names.e IS NOT NULL AND n < ${params.bind(limit)})
    SELECT e AS name, (SELECT max(timestamp) FROM events WHERE project_id = ${P} AND event = e) AS lastSeen
    FROM names WHERE e IS NOT NULL`;
  return runAll<EventName>(d1, sql, params);
}

/** The property keys of the latest sampled events, with each value type's count. */
export async function eventPropertyKeys(d1: D1Client, query: PropertyKeysQuery): Promise<PropertyKeySeen[]> {
  const params = new Params();
  const P = params.bind(query.projectId);
  const byName = query.eventNames?.length ? ` AND event IN ${params.bindList(query.eventNames)}` : "";
  const sql = `SELECT j.key AS key, ${PROPERTY_KIND_OF_JSON_EACH} AS kind, count(*) AS events
    FROM (SELECT properties FROM events WHERE project_id = ${P}${byName} ORDER BY timestamp DESC LIMIT ${params.bind(query.sample)}) e,
      json_each(e.properties) j
    GROUP BY 1, 2`;
  return runAll<PropertyKeySeen>(d1, sql, params);
}
