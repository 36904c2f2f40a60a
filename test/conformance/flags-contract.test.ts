import { beforeAll, describe, expect, it } from "vitest";
import {
  asExpected,
  assertIntact,
  checkedCaseIds,
  CONTRACT_VERSION,
  evaluate,
  evaluationCorpus,
  integrityErrors,
  manifestCaseIds,
  projectionCorpus,
  seed,
  source,
  type Definitions,
  type EvaluationCase,
  type ProjectionCase,
} from "./flags-contract-helpers";
import { agrees, conformance, notExpressible } from "./ledger";

/**
 * PostHog's flag-evaluation contract corpus (./flags-contract/, see flags-contract-helpers.ts),
 * replayed through edgehog's public API: each case gets a fresh project, its flags are created
 * through the flags API, and the case's context is sent to `/flags` (and `/decide`) as an SDK
 * would. The hash corpus is in flags-contract-hash.test.ts.
 */

describe("flags contract corpus: vendored files", () => {
  it("match the SHA-256 digests of SOURCE.json", async () => {
    expect(await integrityErrors()).toEqual([]);
    expect(Object.keys(source.files).sort()).toEqual([
      "corpus/hash_sha1_60_v1.json",
      "corpus/legacy_projection.json",
      "corpus/v1_evaluation.json",
      "manifest.json",
    ]);
  });

  it("declare in manifest.json exactly the cases the corpus files hold", () => {
    expect(evaluationCorpus.cases.map((c) => c.id)).toEqual(manifestCaseIds("corpus/v1_evaluation.json"));
    expect(projectionCorpus.cases.map((c) => c.id)).toEqual(manifestCaseIds("corpus/legacy_projection.json"));
  });
});

// ---------------------------------------------------------------------------------------------
// v1_evaluation.json

const V2 = "/flags/?v=2";

/** Replays one evaluation case: value, enabled, variant, payload, reason code and condition index of every flag; no other flag. */
async function replay(c: EvaluationCase) {
  const { project } = await seed(c.definitions);
  const detailed = await evaluate(V2, project.api_token, c.context);
  const expectedFlags = Object.fromEntries(
    Object.entries(c.expected.flags).map(([key, { local_evaluation: _, ...rest }]) => [key, rest]),
  );
  const actualFlags = Object.fromEntries(
    Object.entries(detailed.flags ?? {}).map(([key, detail]) => [key, asExpected(detail)]),
  );
  expect(actualFlags, `${c.id}: POST ${V2} ${JSON.stringify(c.context)}`).toEqual(expectedFlags);
  for (const omitted of c.expected.omitted_flags) expect(detailed.flags).not.toHaveProperty(omitted);
  expect(detailed.errorsWhileComputingFlags).toBe(false);
  // The value projection itself, as the legacy map gives it.
  const legacy = await evaluate("/flags/", project.api_token, c.context);
  expect(legacy.featureFlags, `${c.id}: POST /flags/ (v1 shape)`).toEqual(
    Object.fromEntries(Object.entries(c.expected.flags).map(([k, f]) => [k, f.value])),
  );
}

/** Cases whose definitions the public flags API refuses, in PostHog as in edgehog. */
const NOT_EXPRESSIBLE_EVALUATION: Record<string, string> = {
  // PostHog's serializer refuses it too: "Filters are not valid (variant override does not exist)".
  "v1.multivariate.invalid_variant_override_uses_hash":
    "variant override to an undeclared variant is refused by the flags API (as by PostHog's)",
};

conformance({ name: "PostHog flags contract corpus (v1_evaluation.json)", version: CONTRACT_VERSION }, () => {
  beforeAll(assertIntact);
  const ids = checkedCaseIds(
    "corpus/v1_evaluation.json",
    evaluationCorpus.cases.map((c) => c.id),
  );
  for (const [i, c] of evaluationCorpus.cases.entries()) {
    if (ids[i] in NOT_EXPRESSIBLE_EVALUATION) notExpressible(c.id, NOT_EXPRESSIBLE_EVALUATION[c.id]);
    else agrees(c.id, () => replay(c));
  }
});

// ---------------------------------------------------------------------------------------------
// legacy_projection.json

const caseById = new Map(evaluationCorpus.cases.map((c) => [c.id, c]));

/**
 * The projection corpus gives an outcome, not definitions: each case is produced through the API
 * from the v1_evaluation case that yields that outcome (same flag id, key and version), with only
 * the flags the projection lists.
 */
const PRODUCED_BY: Record<string, { from: string; definitions?: (d: Definitions) => Definitions }> = {
  "projection.boolean_true": {
    from: "v1.boolean.targeted_match_with_payload",
    definitions: (d) => ({
      ...d,
      flags: d.flags.map(({ filters: { payloads: _, ...filters }, ...f }) => ({ ...f, filters })),
    }),
  },
  "projection.boolean_true_with_payload": { from: "v1.boolean.targeted_match_with_payload" },
  "projection.boolean_false_targeting_miss": { from: "v1.boolean.targeting_miss" },
  "projection.boolean_false_out_of_rollout": { from: "v1.boolean.rollout_excluded" },
  "projection.variant": { from: "v1.multivariate.variant_from_hash_control" },
  "projection.variant_with_payload": { from: "v1.multivariate.variant_from_hash_with_payload" },
  "projection.holdout_variant": { from: "v1.holdout.member" },
  "projection.no_group_type": { from: "v1.group.missing_group_key" },
  "projection.missing_dependency": { from: "v1.dependency.missing_target" },
  "projection.inactive_omitted": {
    from: "v1.omission.inactive_flag",
    definitions: (d) => ({ ...d, flags: d.flags.filter((f) => f.key === "retired-banner") }),
  },
};

const NOT_EXPRESSIBLE_PROJECTION: Record<string, string> = {
  "projection.failed_evaluation": "needs an injected evaluation failure",
};

/** The request paths that select each response protocol (legacy_projection.json's `selected_by`). */
const PROTOCOL_PATHS = {
  flags_v2: ["/flags/?v=2", "/decide/?v=4"],
  flags_v1: ["/flags/", "/flags/?v=1", "/decide/?v=3"],
  decide_v2: ["/decide/?v=2"],
  decide_v1: ["/decide/?v=1", "/decide/"],
} as const;

async function project(c: ProjectionCase) {
  const plan = PRODUCED_BY[c.id];
  const origin = caseById.get(plan.from)!;
  const definitions = plan.definitions ? plan.definitions(origin.definitions) : origin.definitions;
  // The definitions must be those of the outcome's flag.
  const flag = definitions.flags.find((f) => f.key === c.outcome.key);
  expect(flag, `${c.id}: ${plan.from} lacks ${c.outcome.key}`).toMatchObject({
    id: c.outcome.flag_id,
    version: c.outcome.flag_version,
  });

  const { project, idOf, versionOf } = await seed(definitions, { versions: true });
  // edgehog assigns ids; the flag standing for the corpus's flag id is expected in its place. The
  // version is the corpus's unless the API cannot reach it (see seed: reviving a dependent saves it).
  const storedVersion = versionOf.get(c.outcome.key)!;
  const metadata = { id: idOf.get(c.outcome.flag_id), version: Math.max(c.outcome.flag_version, storedVersion) };

  for (const [protocol, paths] of Object.entries(PROTOCOL_PATHS) as [
    keyof typeof PROTOCOL_PATHS,
    readonly string[],
  ][]) {
    const { response_version: _, ...expected } = c.projections[protocol];
    for (const path of paths) {
      const actual = await evaluate(path, project.api_token, origin.context);
      const where = `${c.id} ${protocol} via POST ${path}`;
      for (const [field, value] of Object.entries(expected)) {
        if (field === "flags") {
          const flags = value as Record<string, any>;
          expect(Object.keys(actual.flags ?? {}).sort(), where).toEqual(Object.keys(flags).sort());
          for (const [key, detail] of Object.entries(flags)) {
            expect(actual.flags[key], `${where}: ${key}`).toMatchObject({
              ...detail,
              metadata: { ...detail.metadata, ...metadata },
            });
            if (!("failed" in detail))
              expect(actual.flags[key], `${where}: ${key} has no \`failed\``).not.toHaveProperty("failed");
          }
        } else if (field === "featureFlags" && Array.isArray(value)) {
          expect([...(actual.featureFlags ?? [])].sort(), where).toEqual([...value].sort());
        } else {
          expect(actual[field], `${where}: ${field}`).toEqual(value);
        }
      }
    }
  }
}

conformance({ name: "PostHog flags contract corpus (legacy_projection.json)", version: CONTRACT_VERSION }, () => {
  beforeAll(assertIntact);
  checkedCaseIds(
    "corpus/legacy_projection.json",
    projectionCorpus.cases.map((c) => c.id),
  );
  for (const c of projectionCorpus.cases) {
    if (c.id in NOT_EXPRESSIBLE_PROJECTION) notExpressible(c.id, NOT_EXPRESSIBLE_PROJECTION[c.id]);
    else if (!(c.id in PRODUCED_BY)) throw new Error(`${c.id}: no definitions produce this outcome`);
    else agrees(c.id, () => project(c));
  }
});
