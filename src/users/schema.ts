import { z } from "@hono/zod-openapi";
import type { Principal } from "../lib/auth/principal";
import { OrganizationSchema, organizationRecord } from "../organizations/schema";
import { projectRecord, ProjectSchema } from "../projects/schema";
import type { Project } from "../projects/service";

/**
 * edgehog has keys, not user accounts. PostHog's tooling asks `/api/users/@me/` who it is and
 * which project it works in, so the calling key answers as a user: its label is its name and its
 * distinct id (the id `my_flags` evaluates for), its project is the one `@current` names.
 */
export const UserSchema = z
  .object({
    id: z.number().int().nullable().openapi({ description: "The key's id (null for the root key)." }),
    uuid: z.string().uuid(),
    distinct_id: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    email: z.string(),
    team: ProjectSchema.nullable().openapi({
      description: "The key's only project, or else the first it reaches (by id); null when it reaches none.",
    }),
    organization: OrganizationSchema,
    organizations: z.array(OrganizationSchema),
  })
  .openapi("User");

/** A stable UUID per key, derived from its id, so repeated calls agree. */
const uuidOfKey = (keyId: number | null) => `00000000-0000-4000-9000-${(keyId ?? 0).toString(16).padStart(12, "0")}`;

export function userRecord(principal: Principal, team: Project | undefined): z.infer<typeof UserSchema> {
  const keyId = principal.kind === "personal_api_key" ? principal.keyId : null;
  const organization = organizationRecord();
  return {
    id: keyId,
    uuid: uuidOfKey(keyId),
    distinct_id: principal.label,
    first_name: principal.label,
    last_name: "",
    email: "",
    team: team ? projectRecord(team) : null,
    organization,
    organizations: [organization],
  };
}
