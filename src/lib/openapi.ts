import { z } from "@hono/zod-openapi";

/** A JSON response entry for a route's `responses`. */
export const jsonResponse = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** A required JSON request body (without `required`, a request lacking Content-Type validates as `{}`). */
export const jsonBody = <T extends z.ZodTypeAny>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

/** `{id}` in a path: a stored row's positive integer id (a flag, a cohort, a key). */
export const IdParam = z.coerce
  .number()
  .int()
  .positive()
  .openapi({ param: { name: "id", in: "path" }, example: 1 });
