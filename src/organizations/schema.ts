import { z } from "@hono/zod-openapi";
import { ORGANIZATION } from "../projects/organization";

export const OrganizationSchema = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    slug: z.string(),
    membership_level: z.number().int().openapi({
      description: "PostHog's level for an owner (15): every key administers the deployment's one organization.",
    }),
  })
  .openapi("Organization");

export const OrganizationParams = z.object({
  organization_id: z.string().openapi({
    param: { name: "organization_id", in: "path" },
    description: "`@current` or the organization's id",
    example: "@current",
  }),
});

/** PostHog's OrganizationMembership.Level.OWNER. */
const OWNER = 15;

export const organizationRecord = (): z.infer<typeof OrganizationSchema> => ({
  ...ORGANIZATION,
  membership_level: OWNER,
});

/** Whether a path's organization id names the deployment's organization. */
export const isOurOrganization = (id: string) => id === "@current" || id.toLowerCase() === ORGANIZATION.id;
