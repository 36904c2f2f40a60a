import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { api } from "./client";

/**
 * What a user of a client generated from /api/schema/ relies on: the responses they read most
 * (an endpoint run, /flags, /decide, an endpoint record) have typed fields. The document goes
 * through openapi-typescript (as `npx openapi-typescript` would), then this program is
 * type-checked against the generated types: a response documented as `Record<string, unknown>`
 * types every field as `unknown` and accepts any field, so the checks below fail to compile.
 */
const USES_OF_THE_GENERATED_TYPES = `
import type { components, paths } from "./schema";

type Json<Operation> = Operation extends { responses: { 200: { content: { "application/json": infer Body } } } }
  ? Body
  : never;
type Endpoint = "/api/environments/{project_id}/endpoints/{name}";

export function readRun(run: Json<paths[\`\${Endpoint}/run\`]["post"]>) {
  const version: number = run.endpoint_version;
  // @ts-expect-error -- the run response has no such field
  run.not_a_field;
  if ("columns" in run) {
    const hasMore: boolean = run.hasMore;
    const rows: (string | number | boolean | null)[][] = run.results;
    const columns: string[] = run.columns;
    return { rows, columns, hasMore, version };
  }
  // A funnel's time to convert is one object: its bins.
  if (!Array.isArray(run.results)) {
    const bins: [number, number][] = run.results.bins;
    return { bins, version };
  }
  // An insight version answers PostHog's result objects: series, a retention's cohort rows, or a
  // funnel's steps (a list of them per breakdown value).
  type Result =
    | components["schemas"]["TrendsSeries"]
    | components["schemas"]["LifecycleSeries"]
    | components["schemas"]["StickinessSeries"]
    | components["schemas"]["RetentionRow"]
    | components["schemas"]["FunnelStepResult"]
    | components["schemas"]["FunnelStepResult"][]
    | components["schemas"]["FunnelTrendsSeries"];
  const results: Result[] = run.results;
  const hasMore: boolean | undefined = run.hasMore;
  const first = results[0];
  if (Array.isArray(first)) return { results, step: first[0]?.count, hasMore, version };
  const labels: string[] | undefined = first && "labels" in first ? first.labels : undefined;
  const cohort: number | undefined = first && "values" in first ? first.values[0]?.count : undefined;
  return { results, labels, cohort, hasMore, version };
}

export function readFlags(response: Json<paths["/flags"]["post"]>) {
  const evaluatedAt: number = response.evaluatedAt;
  if ("flags" in response) {
    const detail: components["schemas"]["FlagDetail"] = response.flags["my-flag"];
    const enabled: boolean = detail.enabled;
    const variant: string | null = detail.variant;
    const reason: string = detail.reason.code;
    // @ts-expect-error -- a flag's record has no such field
    detail.not_a_field;
    return { evaluatedAt, enabled, variant, reason };
  }
  const value: boolean | string = response.featureFlags["my-flag"];
  const errors: boolean = response.errorsWhileComputingFlags;
  return { evaluatedAt, value, errors };
}

export function readDecide(response: Json<paths["/decide"]["post"]>) {
  const recording: false = response.sessionRecording;
  if ("flags" in response) return { recording, enabled: response.flags["my-flag"].enabled };
  if ("requestId" in response) return { recording, value: response.featureFlags["my-flag"] };
  const featureFlags: string[] | Record<string, string | true> = response.featureFlags;
  return { recording, featureFlags };
}

export function readEndpoint(record: Json<paths[Endpoint]["get"]>) {
  const query: string = record.query.kind === "HogQLQuery" ? record.query.query : record.query.kind;
  const versions: number = record.versions_count;
  const materialization = record.materialization;
  const status: "Completed" | "Running" | "Failed" | "Unknown" | null =
    "status" in materialization ? materialization.status : null;
  const version: number | null = "version" in record ? record.version : null;
  return { query, versions, status, version };
}
`;

const dir = mkdtempSync(join(tmpdir(), "edgehog-generated-types-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Type-checks the program against types generated from the served document; the errors, as text. */
async function typeErrors(document: unknown): Promise<string[]> {
  writeFileSync(join(dir, "schema.d.ts"), astToString(await openapiTS(document as Parameters<typeof openapiTS>[0])));
  writeFileSync(join(dir, "uses.ts"), USES_OF_THE_GENERATED_TYPES);
  const program = ts.createProgram([join(dir, "uses.ts")], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts"],
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map(diagnosticText);
}

/** `file:line message`, the file relative to the generated directory. */
function diagnosticText(diagnostic: ts.Diagnostic): string {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
  if (!diagnostic.file) return message;
  const line = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1;
  return `${diagnostic.file.fileName.slice(dir.length + 1)}:${line} ${message}`;
}

describe("types generated from /api/schema/ with openapi-typescript", () => {
  it("type the fields of endpoint runs, records, /flags and /decide", async () => {
    const res = await api("/api/schema/", { key: null });
    expect(res.status).toBe(200);
    expect(await typeErrors(res.json)).toEqual([]);
  });
});
