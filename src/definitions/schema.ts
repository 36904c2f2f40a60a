import { z } from "@hono/zod-openapi";
import { PROPERTY_KINDS } from "../analytics/queries";
import { paginatedSchema, PaginationQuery } from "../lib/pagination";

/** PostHog's event definition (the enterprise serializer's fields; edgehog keeps no descriptions, owners or tags). */
export const EventDefinition = z
  .object({
    id: z.string().uuid().openapi({ description: "Stable for the project and name." }),
    name: z.string(),
    owner: z.null(),
    description: z.null(),
    tags: z.array(z.string()),
    created_at: z.null(),
    updated_at: z.null(),
    updated_by: z.null(),
    last_seen_at: z.string().nullable(),
    last_updated_at: z.null(),
    verified: z.boolean(),
    verified_at: z.null(),
    verified_by: z.null(),
    hidden: z.boolean(),
    is_action: z.boolean(),
    post_to_slack: z.boolean(),
    default_columns: z.array(z.string()),
  })
  .openapi("EventDefinition");

export const PropertyDefinition = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    description: z.null(),
    is_numerical: z.boolean(),
    property_type: z.enum(PROPERTY_KINDS).nullable(),
    tags: z.array(z.string()),
    updated_at: z.null(),
    updated_by: z.null(),
    is_seen_on_filtered_events: z.boolean().nullable(),
    verified: z.boolean(),
    verified_at: z.null(),
    verified_by: z.null(),
    hidden: z.boolean(),
  })
  .openapi("PropertyDefinition");

/** A list of names written as JSON text in the query string (`["$pageview"]`). */
const jsonNames = (description: string) =>
  z
    .string()
    .transform((text, ctx) => {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined;
      }
      if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value as string[];
      ctx.addIssue({ code: "custom", message: "Must be a JSON list of names." });
      return z.NEVER;
    })
    .optional()
    .openapi({ type: "string", description });

const flag = z
  .enum(["true", "false", "1", "0"])
  .transform((v) => v === "true" || v === "1")
  .optional();

export const EventDefinitionsQuery = PaginationQuery.extend({
  search: z
    .string()
    .max(200)
    .optional()
    .openapi({ description: "Every word must appear in the name (case-insensitive)." }),
  event_type: z.enum(["event", "event_custom", "event_posthog"]).optional().openapi({
    description: "`event_custom`: names without `$`; `event_posthog`: PostHog's `$` events.",
  }),
});

export const PropertyDefinitionsQuery = PaginationQuery.extend({
  type: z
    .enum(["event", "person"], {
      message: "type must be event or person (group and session properties are not supported).",
    })
    .optional()
    .openapi({ description: "Default `event`." }),
  search: z.string().max(200).optional(),
  event_names: jsonNames('JSON list of event names, e.g. `["$pageview"]` (type event).'),
  filter_by_event_names: flag.openapi({ description: "Only properties seen on `event_names`." }),
  exclude_core_properties: flag.openapi({ description: "Leave out PostHog's `$` properties." }),
  is_feature_flag: flag.openapi({ description: "Only (`true`) or no (`false`) `$feature/` properties." }),
  is_numerical: flag,
  exclude_hidden: flag.openapi({ description: "Accepted: no property is hidden." }),
  properties: z.string().optional().openapi({ description: "Comma-separated names to keep." }),
  excluded_properties: jsonNames("JSON list of names to leave out."),
});

export const EventDefinitionList = paginatedSchema(EventDefinition);
export const PropertyDefinitionList = paginatedSchema(PropertyDefinition);
