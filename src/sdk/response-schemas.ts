import { z } from "@hono/zod-openapi";
import { ConfigFieldsSchema } from "./remote-config";

/**
 * What `/flags` and `/decide` answer, by version (reference/flag-eval.md §6.2): responses.ts
 * serializes exactly these shapes, typed by them.
 */

const requestId = z.string().describe("The request's id (also in the X-Request-Id header).");
const evaluatedAt = z.number().int().describe("When the flags were evaluated, in milliseconds since the epoch.");
const errorsWhileComputingFlags = z
  .boolean()
  .describe(
    "Whether a flag could not be evaluated (its record has `failed: true`); SDKs then keep their cached value.",
  );

export const FlagDetailSchema = z
  .object({
    key: z.string(),
    enabled: z.boolean(),
    variant: z.string().nullable().describe("The variant's key; null for a boolean result."),
    reason: z.object({
      code: z
        .string()
        .describe("condition_match, no_condition_match, out_of_rollout_bound, ...; an error code on error records."),
      condition_index: z.number().int().nullable(),
      description: z.string(),
    }),
    metadata: z.object({
      id: z.number().int(),
      version: z.number().int().describe("0 when unknown."),
      description: z.string().nullable().describe("The flag's name."),
      payload: z.unknown().describe("The payload of the outcome (usually a JSON string); null when none."),
    }),
    failed: z.literal(true).optional().describe("An error record: the flag could not be evaluated."),
  })
  .openapi("FlagDetail");

/** `/flags?v=2` and higher, `/decide?v=4` and higher. */
export const FlagsV2ResponseSchema = z
  .object({
    errorsWhileComputingFlags,
    flags: z.record(z.string(), FlagDetailSchema).describe("Every evaluated flag, by key."),
    requestId,
    evaluatedAt,
  })
  .openapi("FlagsResponseV2", { description: "Detailed: `/flags?v=2` (and higher), `/decide?v=4` (and higher)." });

/** The value an SDK reads for a flag: its variant, else whether it is enabled. */
const FlagValueSchema = z.union([z.boolean(), z.string()]);

/** `/flags` without `v` or with `v=1`, `/decide?v=3`. */
export const FlagsV1ResponseSchema = z
  .object({
    errorsWhileComputingFlags,
    featureFlags: z.record(z.string(), FlagValueSchema).describe("Every evaluated flag: its variant, else enabled."),
    featureFlagPayloads: z.record(z.string(), z.unknown()).describe("Enabled flags that have a payload."),
    requestId,
    evaluatedAt,
  })
  .openapi("FlagsResponseV1", { description: "Legacy: `/flags` (no `v`, or `v=1`), `/decide?v=3`." });

/** `/decide` without `v` or with `v=1`. */
export const DecideV1ResponseSchema = z
  .object({ featureFlags: z.array(z.string()).describe("The keys of the enabled flags.") })
  .openapi("DecideResponseV1", { description: "`/decide` (no `v`, or `v=1`)." });

/** `/decide?v=2`. */
export const DecideV2ResponseSchema = z
  .object({
    featureFlags: z
      .record(z.string(), z.union([z.literal(true), z.string()]))
      .describe("The enabled flags: their variant, else true."),
  })
  .openapi("DecideResponseV2", { description: "`/decide?v=2`." });

export type FlagDetail = z.infer<typeof FlagDetailSchema>;
export type FlagsV2Response = z.infer<typeof FlagsV2ResponseSchema>;
export type FlagsV1Response = z.infer<typeof FlagsV1ResponseSchema>;
export type DecideV1Response = z.infer<typeof DecideV1ResponseSchema>;
export type DecideV2Response = z.infer<typeof DecideV2ResponseSchema>;

export const FlagsResponseSchema = z
  .intersection(z.union([FlagsV2ResponseSchema, FlagsV1ResponseSchema]), ConfigFieldsSchema.partial())
  .openapi("FlagsResponse", {
    description:
      "By `v`; with the config fields (all of them) on `config=true`, or when the request sends neither `v` nor `config`.",
  });

export const DecideResponseSchema = z
  .intersection(
    z.union([FlagsV2ResponseSchema, FlagsV1ResponseSchema, DecideV2ResponseSchema, DecideV1ResponseSchema]),
    ConfigFieldsSchema,
  )
  .openapi("DecideResponse", { description: "By `v`, always with the config fields." });
