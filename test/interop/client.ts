import { inject } from "vitest";

export const workerUrl = () => inject("workerUrl");

/** A JSON call to the running worker, with the root key unless another key (or null) is given. */
export async function api(path: string, init: { method?: string; body?: unknown; key?: string | null } = {}) {
  const key = init.key === undefined ? inject("rootKey") : init.key;
  const res = await fetch(`${workerUrl()}${path}`, {
    method: init.method ?? "GET",
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

export async function newProject(name = `interop ${Math.random().toString(36).slice(2, 8)}`) {
  const res = await api("/api/projects/", { method: "POST", body: { name } });
  if (res.status !== 201) throw new Error(`project creation failed: ${res.status}`);
  return res.json as { id: number; api_token: string };
}

/** Creates a feature flag in a project through the API (root key), failing on any other status than 201. */
export async function createFlag(projectId: number, body: Record<string, unknown>) {
  const res = await api(`/api/projects/${projectId}/feature_flags/`, { method: "POST", body });
  if (res.status !== 201) throw new Error(`flag ${body.key}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json;
}
