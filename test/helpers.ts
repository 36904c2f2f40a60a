import { exports, env } from "cloudflare:workers";
import { inStep, untilMirrored } from "./clickhouse/worker/mirror";

export const BASE = "http://edgehog.test";
export const ROOT_KEY = env.ROOT_API_KEY;
/**
 * Whether this test deployment stores events in ClickHouse: the ClickHouse suite's worker project runs
 * some of the D1 suites again (vitest.clickhouse.config.ts); where the engines differ, as
 * docs/compatibility.md says, the tests expect each engine's answer.
 */
export const onClickHouse = "CLICKHOUSE_URL" in env;

export interface CallOptions {
  method?: string;
  key?: string | null;
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  rawBody?: BodyInit;
  headers?: Record<string, string>;
}

/** Calls the worker over HTTP (its real fetch handler), authenticating with the root key by default. */
export async function call(path: string, options: CallOptions = {}) {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? ROOT_KEY : options.key;
  if (key) headers.authorization = `Bearer ${key}`;
  let body: BodyInit | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  // On a ClickHouse deployment a change to persons reaches the mirror through the events queue: when
  // the mirror was in step before, wait for it after, so the next request (a persons list, read from
  // the mirror) sees the change as D1 does. Tests that seed D1 alone leave it out of step: no wait.
  const persons = /^\/api\/(?:projects|environments)\/(\d+)\/persons\//.exec(path);
  const project = onClickHouse && persons && (options.method ?? "GET") !== "GET" ? Number(persons[1]) : undefined;
  const wait = project !== undefined && (await inStep(project));
  const response = await exports.default.fetch(
    new Request(`${BASE}${path}`, { method: options.method ?? "GET", headers, body }),
  );
  const text = await response.text();
  if (wait) await untilMirrored(project!);
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Text gzip-compressed, as SDKs compress their bodies. */
export const gzip = (text: string): Promise<ArrayBuffer> =>
  new Response(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer();

export async function createProject(name = `project ${crypto.randomUUID().slice(0, 8)}`, timezone?: string) {
  const res = await call("/api/projects/", { method: "POST", body: { name, timezone } });
  if (res.status !== 201) throw new Error(`project creation failed: ${res.status} ${res.text}`);
  return res.json as { id: number; name: string; api_token: string; timezone: string };
}

export async function createKey(scopes: string[], scopedTeams?: number[]) {
  const res = await call("/api/personal_api_keys/", {
    method: "POST",
    body: { label: `key ${scopes.join(",")}`, scopes, scoped_teams: scopedTeams ?? null },
  });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${res.text}`);
  return res.json.value as string;
}

/** Creates a feature flag in a project through the API (root key), failing the test on any other status than 201. */
export async function createFlag(projectId: number, body: unknown) {
  const res = await call(`/api/projects/${projectId}/feature_flags/`, { method: "POST", body });
  if (res.status !== 201) throw new Error(res.text);
  return res.json;
}

/** Asserts PostHog's error envelope and returns it. */
export function envelope(res: { json: any }) {
  const body = res.json;
  if (
    !body ||
    typeof body.type !== "string" ||
    typeof body.code !== "string" ||
    typeof body.detail !== "string" ||
    !("attr" in body)
  ) {
    throw new Error(`not an error envelope: ${JSON.stringify(body)}`);
  }
  return body as { type: string; code: string; detail: string; attr: string | null };
}

/** A `$groupidentify` through `/batch/` (how a project gets a group type and a group); the response, unchecked. */
export function identifyGroup(
  token: string,
  type: string,
  key: string,
  set: Record<string, unknown> = {},
  distinctId = key,
) {
  return call("/batch/", {
    method: "POST",
    key: null,
    body: {
      api_key: token,
      batch: [
        {
          event: "$groupidentify",
          distinct_id: distinctId,
          properties: { $group_type: type, $group_key: key, $group_set: set },
        },
      ],
    },
  });
}

/** Flag filters that let everyone in, half on variant "a" and half on "b". */
export const evenSplit = () => ({
  groups: [{ rollout_percentage: 100 }],
  multivariate: {
    variants: [
      { key: "a", rollout_percentage: 50 },
      { key: "b", rollout_percentage: 50 },
    ],
  },
});
