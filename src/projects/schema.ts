import { z } from "@hono/zod-openapi";
import { isValidTimeZone } from "../lib/time";
import { ORGANIZATION } from "./organization";
import type { Project } from "./service";

export const ProjectSchema = z
  .object({
    id: z.number().int(),
    project_id: z.number().int().openapi({ description: "The same id (PostHog distinguishes projects from environments; here they are one)." }),
    organization: z.string().uuid().openapi({ description: "The deployment's one implicit organization." }),
    name: z.string(),
    api_token: z.string().openapi({ description: "Public project token (`phc_...`) that SDKs send." }),
    timezone: z.string(),
    created_at: z.string(),
  })
  .openapi("Project");

const TimeZone = z.string().refine(isValidTimeZone, { message: "Unknown time zone." });

export const CreateProjectBody = z.object({
  name: z.string().trim().min(1).max(200),
  timezone: TimeZone.optional().openapi({ description: "IANA time zone (default UTC)." }),
});

export const UpdateProjectBody = CreateProjectBody.partial();

export const ProjectParams = z.object({
  project_id: z.string().openapi({ param: { name: "project_id", in: "path" }, example: "1" }),
});

export function projectRecord(project: Project): z.infer<typeof ProjectSchema> {
  return {
    id: project.id,
    project_id: project.id,
    organization: ORGANIZATION.id,
    name: project.name,
    api_token: project.apiToken,
    timezone: project.timezone,
    created_at: project.createdAt,
  };
}
