import { env } from "cloudflare:workers";
import { mirroredPersonVersion } from "../../../src/analytics/clickhouse/rows";
import { clickhouse } from "./client";

const mirrorRows = async <T>(query: string, params: Record<string, unknown>): Promise<T[]> =>
  (await clickhouse().query({ query, query_params: params, format: "JSONEachRow" })).json<T>();

/** The project's persons and distinct ids as D1 holds them and as the mirror does, comparably. */
async function states(projectId: number): Promise<{ d1: string; mirror: string }> {
  const [people, ids, mirroredPeople, mirroredIds] = await Promise.all([
    env.DB.prepare("SELECT id, version FROM persons WHERE project_id = ? ORDER BY id")
      .bind(projectId)
      .all<{ id: number; version: number }>(),
    env.DB.prepare(
      `SELECT d.distinct_id, p.uuid FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id
       WHERE d.project_id = ? ORDER BY d.distinct_id`,
    )
      .bind(projectId)
      .all<{ distinct_id: string; uuid: string }>(),
    mirrorRows<{ d1_id: number; version: string }>(
      `SELECT d1_id, toString(version) AS version FROM person FINAL
       WHERE team_id = {team:Int64} AND is_deleted = 0 ORDER BY d1_id`,
      { team: projectId },
    ),
    mirrorRows<{ distinct_id: string; person_id: string }>(
      `SELECT distinct_id, toString(person_id) AS person_id FROM person_distinct_id2 FINAL
       WHERE team_id = {team:Int64} AND is_deleted = 0 ORDER BY distinct_id`,
      { team: projectId },
    ),
  ]);
  return {
    d1: JSON.stringify([
      people.results.map((p) => [p.id, mirroredPersonVersion(p.id, p.version)]),
      ids.results.map((d) => [d.distinct_id, d.uuid]),
    ]),
    mirror: JSON.stringify([
      mirroredPeople.map((p) => [Number(p.d1_id), p.version]),
      mirroredIds.map((d) => [d.distinct_id, d.person_id]),
    ]),
  };
}

/** Whether ClickHouse's persons mirror holds what D1 holds for the project (see untilMirrored). */
export async function inStep(projectId: number): Promise<boolean> {
  const { d1, mirror } = await states(projectId);
  return d1 === mirror;
}

/**
 * Waits until ClickHouse's persons mirror holds what D1 holds for the project: each live person at
 * D1's version, each distinct id with its person. Writes outside capture (a PATCH, a split, a
 * deletion) reach the mirror through the events queue after the response, as on a deployment.
 */
export async function untilMirrored(projectId: number) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { d1, mirror } = await states(projectId);
    if (d1 === mirror) return;
    if (Date.now() > deadline) throw new Error(`persons mirror of project ${projectId}: ${mirror}, D1: ${d1}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
