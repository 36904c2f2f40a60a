import { expect } from "vitest";
import { call, createFlag, createProject, identifyGroup } from "../helpers";
import sourceText from "./flags-contract/SOURCE.json?raw";
import manifestText from "./flags-contract/manifest.json?raw";
import hashText from "./flags-contract/corpus/hash_sha1_60_v1.json?raw";
import projectionText from "./flags-contract/corpus/legacy_projection.json?raw";
import evaluationText from "./flags-contract/corpus/v1_evaluation.json?raw";

/**
 * PostHog's flag-evaluation contract corpus (Feature Flag Rules v2 contract 1.2.0, corpus 1.1.0),
 * vendored byte for byte in ./flags-contract/ (see its README.md and SOURCE.json). The files are
 * read as text with vite's `?raw`, hashed to check them against SOURCE.json, and parsed from that
 * same text, so what is replayed is exactly what was verified.
 */

export const CONTRACT_VERSION = "1.2.0";

/** The text of every vendored file SOURCE.json lists, by its path there. */
const LISTED_TEXT: Record<string, string> = {
  "manifest.json": manifestText,
  "corpus/hash_sha1_60_v1.json": hashText,
  "corpus/legacy_projection.json": projectionText,
  "corpus/v1_evaluation.json": evaluationText,
};

interface Source {
  contract_version: string;
  corpus_version: string;
  files: Record<string, string>;
}

export const source = JSON.parse(sourceText) as Source;
export const manifest = JSON.parse(manifestText) as {
  artifacts: Array<{ path: string; kind: string; case_ids?: string[] }>;
};

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

let integrity: Promise<string[]> | undefined;

/**
 * Every difference between the vendored files and SOURCE.json (empty when intact): a listed file
 * whose SHA-256 differs or that this suite does not read, and the pinned contract version. The
 * folder's README.md is ours (provenance), not part of the corpus.
 */
export function integrityErrors(): Promise<string[]> {
  integrity ??= (async () => {
    const errors: string[] = [];
    if (source.contract_version !== CONTRACT_VERSION)
      errors.push(`SOURCE.json pins contract ${source.contract_version}, this suite replays ${CONTRACT_VERSION}`);
    for (const [path, expected] of Object.entries(source.files)) {
      const text = LISTED_TEXT[path];
      if (text === undefined) {
        errors.push(`${path} is listed in SOURCE.json but not read by this suite`);
        continue;
      }
      const actual = await sha256Hex(text);
      if (actual !== expected) errors.push(`${path}: SHA-256 ${actual}, SOURCE.json says ${expected}`);
    }
    for (const path of Object.keys(LISTED_TEXT))
      if (!(path in source.files)) errors.push(`${path} is not listed in SOURCE.json`);
    return errors;
  })();
  return integrity;
}

/** Throws (failing the suite's cases) when a vendored file does not match SOURCE.json. */
export async function assertIntact() {
  const errors = await integrityErrors();
  if (errors.length)
    throw new Error(`The vendored flags contract corpus does not match SOURCE.json:\n  ${errors.join("\n  ")}`);
}

/** The case ids manifest.json declares for a corpus file. */
export function manifestCaseIds(path: string): string[] {
  const artifact = manifest.artifacts.find((a) => a.path === path);
  if (!artifact?.case_ids) throw new Error(`manifest.json declares no case ids for ${path}`);
  return artifact.case_ids;
}

// ---------------------------------------------------------------------------------------------
// Corpus shapes

export interface CorpusProperty {
  key: string;
  type: "person" | "group" | "flag";
  operator: string;
  value: unknown;
  group_type_index?: number;
  dependency_chain?: string[];
}

export interface CorpusCondition {
  properties: CorpusProperty[];
  rollout_percentage: number | null;
  variant?: string;
}

export interface CorpusFlag {
  id: number;
  key: string;
  version: number;
  active: boolean;
  filters: {
    groups: CorpusCondition[];
    multivariate?: { variants: Array<{ key: string; rollout_percentage: number }> };
    payloads?: Record<string, string>;
    aggregation_group_type_index?: number;
    holdout?: { id: number; exclusion_percentage: number };
    early_exit?: boolean;
  };
}

export interface Definitions {
  flags: CorpusFlag[];
  group_type_mapping?: Record<string, string>;
}

export interface Context {
  distinct_id: string;
  person_properties: Record<string, unknown>;
  groups?: Record<string, string | number>;
  group_properties?: Record<string, Record<string, unknown>>;
}

export interface ExpectedFlag {
  value: boolean | string;
  enabled: boolean;
  variant: string | null;
  payload: string | null;
  reason: { code: string; condition_index: number | null };
  local_evaluation: "conclusive" | "inconclusive" | "remote_only";
}

export interface EvaluationCase {
  id: string;
  definitions: Definitions;
  context: Context;
  expected: { flags: Record<string, ExpectedFlag>; omitted_flags: string[] };
  notes?: string;
}

export interface ProjectionCase {
  id: string;
  outcome: {
    key: string;
    flag_id: number;
    flag_version: number;
    enabled: boolean;
    variant: string | null;
    payload: string | null;
    failed: boolean;
    omitted: boolean;
    reason: { code: string; condition_index: number | null };
  };
  projections: Record<
    "flags_v2" | "flags_v1" | "decide_v2" | "decide_v1",
    Record<string, unknown> & { response_version: number }
  >;
  notes?: string;
}

export interface HashVector {
  id: string;
  prefix: string;
  identifier: string;
  salt: string;
  input: string;
  sha1_hex: string;
  n: string;
  hash01: number;
  hash01_binary64_hex: string;
  rollout_checks?: Array<{ rollout_percentage: number; threshold: number; included: boolean; short_circuit?: boolean }>;
  holdout_checks?: Array<{ exclusion_percentage: number; threshold: number; member: boolean; short_circuit?: boolean }>;
  variant_check?: {
    variants: Array<{ key: string; rollout_percentage: number }>;
    cumulative_boundaries: number[];
    selected: string | null;
  };
  identifier_before_truncation?: string;
  identifier_empty?: boolean;
  identifier_source?: { json_group_key: number };
}

export interface ThresholdVector {
  id: string;
  hash01: number;
  rollout_percentage: number;
  threshold: number;
  included: boolean;
  short_circuit?: boolean;
}

export interface VariantVector {
  id: string;
  hash01: number;
  variants: Array<{ key: string; rollout_percentage: number }>;
  cumulative_boundaries: number[];
  selected: string | null;
  v1_result?: string;
}

export interface SeedParity {
  id: string;
  flag_key: string;
  identifier: string | null;
  salt: string;
  v1_input?: string;
  hash01: number;
  identical_outcome: boolean;
  divergence?: string;
}

export const evaluationCorpus = JSON.parse(evaluationText) as { corpus_version: string; cases: EvaluationCase[] };
export const projectionCorpus = JSON.parse(projectionText) as { corpus_version: string; cases: ProjectionCase[] };
export const hashCorpus = JSON.parse(hashText) as {
  corpus_version: string;
  vectors: HashVector[];
  threshold_vectors: ThresholdVector[];
  variant_vectors: VariantVector[];
  seed_parity: SeedParity[];
};

/** The ids of a corpus file's cases, checked against manifest.json: the same ids, in order, each once. */
export function checkedCaseIds(path: string, ids: string[]): string[] {
  const declared = manifestCaseIds(path);
  if (new Set(ids).size !== ids.length || JSON.stringify(ids) !== JSON.stringify(declared)) {
    throw new Error(`${path}: case ids ${JSON.stringify(ids)} differ from manifest.json's ${JSON.stringify(declared)}`);
  }
  return ids;
}

// ---------------------------------------------------------------------------------------------
// Seeding a case's definitions through the public API

export interface Seeded {
  project: { id: number; api_token: string };
  /** The id edgehog gave the flag standing for each corpus flag id. */
  idOf: Map<number, number>;
  /** The stored version of each flag, by key. */
  versionOf: Map<string, number>;
}

/** The project's group types, in index order, each by one `$groupidentify`. */
async function createGroupTypes(token: string, mapping: Record<string, string>) {
  const types = Object.entries(mapping).sort(([a], [b]) => Number(a) - Number(b));
  for (const [, name] of types) {
    const res = await identifyGroup(token, name, "conformance-setup");
    if (res.status !== 200) throw new Error(`group type ${name}: ${res.status} ${res.text}`);
  }
}

async function patchFlag(projectId: number, id: number, body: unknown) {
  const res = await call(`/api/projects/${projectId}/feature_flags/${id}/`, { method: "PATCH", body });
  if (res.status !== 200) throw new Error(`PATCH flag ${id}: ${res.status} ${res.text}`);
  return res.json;
}

/**
 * Creates a fresh project holding the case's flags, through the flags API as a user would. Flag
 * dependencies name their target by key in the corpus (the local-evaluation feed's shape); PostHog
 * and edgehog store the target's id, so targets are created first and referenced by id. A target
 * the definitions lack (a missing dependency) is created, referenced, then deleted: the dependent
 * is created inactive so the deletion is allowed (a flag with active dependents cannot be deleted)
 * and activated afterwards. With `versions`, each flag is then saved until it reaches its corpus
 * `version` (edgehog bumps `version` on every save; it cannot be set).
 */
export async function seed(definitions: Definitions, options: { versions?: boolean } = {}): Promise<Seeded> {
  const project = await createProject();
  if (definitions.group_type_mapping) await createGroupTypes(project.api_token, definitions.group_type_mapping);
  const byKey = new Map(definitions.flags.map((f) => [f.key, f]));
  const idOf = new Map<number, number>();
  const idByKey = new Map<string, number>();
  const versionOf = new Map<string, number>();
  const orphans: Array<{ standIn: number; dependent: number; active: boolean }> = [];

  const create = async (flag: CorpusFlag, visiting: Set<string>): Promise<number> => {
    const known = idByKey.get(flag.key);
    if (known !== undefined) return known;
    if (visiting.has(flag.key)) throw new Error(`dependency cycle at ${flag.key}`);
    visiting.add(flag.key);
    const standIns: number[] = [];
    const groups = [];
    for (const condition of flag.filters.groups) {
      const properties = [];
      for (const p of condition.properties) {
        if (p.type !== "flag") {
          properties.push(p);
          continue;
        }
        const target = byKey.get(p.key);
        let targetId: number;
        if (target) targetId = await create(target, visiting);
        else {
          const standIn = await createFlag(project.id, {
            key: p.key,
            filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
          });
          targetId = standIn.id;
          standIns.push(targetId);
        }
        const { dependency_chain: _chain, ...stored } = p;
        properties.push({ ...stored, key: String(targetId) });
      }
      groups.push({ ...condition, properties });
    }
    const created = await createFlag(project.id, {
      key: flag.key,
      name: flag.key,
      active: standIns.length ? false : flag.active,
      filters: { ...flag.filters, groups },
    });
    for (const standIn of standIns) orphans.push({ standIn, dependent: created.id, active: flag.active });
    idOf.set(flag.id, created.id);
    idByKey.set(flag.key, created.id);
    versionOf.set(flag.key, created.version);
    visiting.delete(flag.key);
    return created.id;
  };

  for (const flag of definitions.flags) await create(flag, new Set());
  for (const { standIn, dependent, active } of orphans) {
    const res = await call(`/api/projects/${project.id}/feature_flags/${standIn}/`, { method: "DELETE" });
    if (res.status !== 204) throw new Error(`deleting the missing dependency's stand-in: ${res.status} ${res.text}`);
    const key = definitions.flags.find((f) => idOf.get(f.id) === dependent)!.key;
    if (active) versionOf.set(key, (await patchFlag(project.id, dependent, { active: true })).version);
  }
  if (options.versions) {
    for (const flag of definitions.flags) {
      const id = idOf.get(flag.id)!;
      let version = versionOf.get(flag.key)!;
      while (version < flag.version)
        version = (await patchFlag(project.id, id, { name: `${flag.key} v${version + 1}` })).version;
      versionOf.set(flag.key, version);
    }
  }
  return { project, idOf, versionOf };
}

/** The /flags (or /decide) body of a corpus context, as an SDK sends it. */
export function requestBody(token: string, context: Context): Record<string, unknown> {
  return {
    token,
    distinct_id: context.distinct_id,
    person_properties: context.person_properties,
    ...(context.groups ? { groups: context.groups } : {}),
    ...(context.group_properties ? { group_properties: context.group_properties } : {}),
  };
}

export async function evaluate(path: string, token: string, context: Context) {
  const body = requestBody(token, context);
  const res = await call(path, { method: "POST", key: null, body });
  expect(res.status, `${path} ${JSON.stringify(body)} → ${res.text}`).toBe(200);
  return res.json;
}

/** A v2 detailed record in the corpus's expected shape (value derived as PostHog's legacy projection does). */
export function asExpected(detail: any): Omit<ExpectedFlag, "local_evaluation"> {
  return {
    value: detail.enabled ? (detail.variant ?? true) : false,
    enabled: detail.enabled,
    variant: detail.variant,
    payload: detail.metadata?.payload,
    reason: { code: detail.reason?.code, condition_index: detail.reason?.condition_index },
  };
}
