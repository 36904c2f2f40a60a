import { z } from "@hono/zod-openapi";
import { ApiError } from "../lib/errors";
import { isValidTimeZone } from "../lib/time/zone";
import { parseFilterGroup } from "../shared/filters/types";
import { ORGANIZATION } from "./organization";
import { type Project, type ProjectSettings, weekStartOf } from "./service";

export const ProjectSchema = z
  .object({
    id: z.number().int(),
    project_id: z
      .number()
      .int()
      .openapi({ description: "The same id (PostHog distinguishes projects from environments; here they are one)." }),
    organization: z.string().uuid().openapi({ description: "The deployment's one implicit organization." }),
    name: z.string(),
    api_token: z.string().openapi({ description: "Public project token (`phc_...`) that SDKs send." }),
    timezone: z.string(),
    test_account_filters: z.array(z.record(z.string(), z.unknown())).openapi({
      description:
        "Property filters that mark internal and test users; analysis leaves them out on `filter_test_accounts=true`.",
    }),
    week_start_day: z.union([z.literal(0), z.literal(1)]).openapi({
      description: "The first day of a week in insights and persons drill-downs: 0 Sunday (the default), 1 Monday.",
    }),
    created_at: z.string(),
  })
  .openapi("Project");

const TimeZone = z.string().refine(isValidTimeZone, { message: "Unknown time zone." });

/** Checked by the same parser that later compiles them, so a stored list always compiles. */
const TestAccountFilters = z.array(z.record(z.string(), z.unknown())).superRefine((filters, ctx) => {
  try {
    parseFilterGroup(filters, "test_account_filters", "event");
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    ctx.addIssue({ code: "custom", message: error.detail });
  }
});

export const CreateProjectBody = z.object({
  name: z.string().trim().min(1).max(200),
  timezone: TimeZone.optional().openapi({ description: "IANA time zone (default UTC)." }),
  test_account_filters: TestAccountFilters.optional().openapi({
    description:
      'Property filters matching internal and test users, e.g. `[{"key": "email", "value": "@example.com", "operator": "not_icontains", "type": "person"}]` (default none).',
  }),
  week_start_day: z
    .union([z.literal(0), z.literal(1), z.null()])
    .optional()
    .openapi({ description: "0 Sunday (the default; null means the same), 1 Monday: where weeks start in insights." }),
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
    test_account_filters: project.testAccountFilters,
    week_start_day: weekStartOf(project),
    created_at: project.createdAt,
  };
}

/** The columns a create or update body sets. */
export function projectSettingsOf(body: z.infer<typeof UpdateProjectBody>): ProjectSettings {
  return {
    name: body.name,
    timezone: body.timezone,
    testAccountFilters: body.test_account_filters,
    weekStartDay: body.week_start_day === undefined ? undefined : (body.week_start_day ?? 0),
  };
}
