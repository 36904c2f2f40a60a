import { z } from "@hono/zod-openapi";
import { ALL_SCOPES, isKnownScope } from "../lib/auth/scopes";
import type { Principal } from "../lib/auth/principal";
import { IdParam } from "../lib/openapi";
import { scopedProjectsOf, type PersonalApiKey } from "./service";

/** Bounds the JSON id list a key carries into every request's scope check and project listing. */
export const MAX_SCOPED_PROJECTS = 1000;

export const KeySchema = z
  .object({
    id: z.number().int().nullable(),
    label: z.string(),
    mask_value: z.string().nullable(),
    scopes: z.array(z.string()),
    scoped_teams: z
      .array(z.number().int())
      .openapi({ description: "Projects the key may reach; empty = every project (as PostHog)." }),
    scoped_organizations: z
      .array(z.string())
      .openapi({ description: "Always empty: a deployment has one implicit organization, which every key reaches." }),
    created_at: z.string().nullable(),
    last_used_at: z.string().nullable(),
  })
  .openapi("PersonalApiKey");

export const CreatedKeySchema = KeySchema.extend({
  value: z.string().openapi({ description: "The plaintext key. Shown only in this response." }),
}).openapi("CreatedPersonalApiKey");

export const CreateKeyBody = z.object({
  label: z.string().trim().min(1).max(100),
  scopes: z
    .array(z.string().refine(isKnownScope, { message: `Unknown scope. Known scopes: ${ALL_SCOPES.join(", ")}.` }))
    .min(1)
    .openapi({ example: ["person:read", "feature_flag:write"] }),
  scoped_teams: z
    .array(z.number().int().positive())
    .max(MAX_SCOPED_PROJECTS, { message: `A key may be scoped to at most ${MAX_SCOPED_PROJECTS} projects.` })
    .nullable()
    .optional()
    .openapi({ description: "Projects the key may reach; null or empty = every project." }),
});

export const KeyIdParams = z.object({ id: IdParam });

export function keyRecord(key: PersonalApiKey): z.infer<typeof KeySchema> {
  return {
    id: key.id,
    label: key.label,
    mask_value: key.maskValue,
    scopes: key.scopes,
    scoped_teams: scopedProjectsOf(key) ?? [],
    scoped_organizations: [],
    created_at: key.createdAt,
    last_used_at: key.lastUsedAt,
  };
}

/** What `@current` tells a caller about its own credential; the root key has no stored record. */
export function currentKeyRecord(principal: Principal, key: PersonalApiKey | undefined): z.infer<typeof KeySchema> {
  if (principal.kind === "personal_api_key" && key) return keyRecord(key);
  return {
    id: null,
    label: "root",
    mask_value: null,
    scopes: ["*"],
    scoped_teams: [],
    scoped_organizations: [],
    created_at: null,
    last_used_at: null,
  };
}
