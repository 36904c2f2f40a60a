import { z } from "@hono/zod-openapi";
import { jsonResponse as json } from "../lib/openapi";
import { createRouter, defineRoute } from "../lib/route";
import { OrganizationSchema, organizationRecord } from "../organizations/schema";
import { projectRecord, ProjectSchema } from "../projects/schema";
import { currentProjectOf } from "../projects/service";

/**
 * edgehog has keys, not user accounts. PostHog's tooling asks `/api/users/@me/` who it is and
 * which project it works in, so the calling key answers as a user: its label is its name and its
 * distinct id (the id `my_flags` evaluates for), its project is the one `@current` names.
 */
const UserSchema = z
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

const me = defineRoute({
  method: "get",
  path: "/api/users/@me",
  tags: ["users"],
  summary: "The calling key, as PostHog's tooling expects a user: its project and organization",
  auth: { kind: "personal", scopes: [] },
  responses: { 200: json(UserSchema, "The caller") },
});

/** A stable UUID per key, derived from its id, so repeated calls agree. */
const uuidOfKey = (keyId: number | null) => `00000000-0000-4000-9000-${(keyId ?? 0).toString(16).padStart(12, "0")}`;

export const userRoutes = createRouter().openapi(me, async (c) => {
  const principal = c.get("principal");
  const { project, reachable } = await currentProjectOf(c.get("db"), principal);
  const team = project ?? reachable[0];
  const keyId = principal.kind === "personal_api_key" ? principal.keyId : null;
  const organization = organizationRecord();
  return c.json(
    {
      id: keyId,
      uuid: uuidOfKey(keyId),
      distinct_id: principal.label,
      first_name: principal.label,
      last_name: "",
      email: "",
      team: team ? projectRecord(team) : null,
      organization,
      organizations: [organization],
    },
    200,
  );
});
