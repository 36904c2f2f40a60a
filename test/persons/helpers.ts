import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { storedEventCount, untilStored } from "../clickhouse/worker/queue-helpers";
import { BASE, call, onClickHouse } from "../helpers";

/** Sends events through the real capture endpoint, as an SDK would. */
export async function capture(token: string, batch: Record<string, unknown>[]) {
  // On a ClickHouse deployment events arrive through the queue: wait for them before answering.
  const project = onClickHouse ? await projectOfToken(token) : undefined;
  const before = project === undefined ? 0 : await storedEventCount(project);
  const res = await exports.default.fetch(
    new Request(`${BASE}/batch/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ api_key: token, batch }),
    }),
  );
  expect(res.status).toBe(200);
  if (project !== undefined) await untilStored(project, before, batch.length);
}

const projectOfToken = async (token: string) =>
  (await env.DB.prepare("SELECT id FROM projects WHERE api_token = ?").bind(token).first<{ id: number }>())!.id;

export const personsPath = (projectId: number, rest = "") => `/api/environments/${projectId}/persons/${rest}`;

/** The person (retrieve shape) a distinct id belongs to, found through the list API. */
export async function personByDistinctId(projectId: number, distinctId: string) {
  const list = await call(`${personsPath(projectId)}?distinct_id=${encodeURIComponent(distinctId)}`);
  expect(list.status).toBe(200);
  const uuid = list.json.results[0]?.uuid;
  if (!uuid) return undefined;
  const res = await call(personsPath(projectId, `${uuid}/`));
  expect(res.status).toBe(200);
  return res.json as {
    id: number;
    uuid: string;
    name: unknown;
    distinct_ids: string[];
    properties: Record<string, unknown>;
    created_at: string;
  };
}

/** Every person of a project (up to a thousand) as the persons list gives them, in its order. */
export async function everyone(projectId: number) {
  const res = await call(`${personsPath(projectId)}?limit=1000`);
  expect(res.status).toBe(200);
  return res.json.results as { uuid: string; distinct_ids: string[]; properties: Record<string, unknown> }[];
}
