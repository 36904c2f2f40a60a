import { z } from "@hono/zod-openapi";
import type { Context, TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONParsed } from "hono/utils/types";

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

declare const encoded: unique symbol;

/**
 * JSON text that encodes a `T`. Hot paths serialize their bodies themselves (from cached
 * fragments, or once per cached payload) instead of handing c.json an object; the brand carries
 * the value's type to the response, so the route's declared schema is still checked against it.
 */
export type JsonText<T> = string & { readonly [encoded]: T };

/** Marks text as the JSON of a `T`: only where the text is built, from values of that type. */
export const jsonText = <T>(text: string) => text as JsonText<T>;

/** A JSON response from text already serialized, typed as c.json types the value it encodes. */
export function jsonTextResponse<T, S extends ContentfulStatusCode>(
  c: Context,
  text: JsonText<T>,
  status: S,
  headers: Record<string, string> = {},
) {
  return c.newResponse(text, status, { ...headers, "Content-Type": "application/json" }) as Response &
    TypedResponse<JSONParsed<T>, S, "json">;
}
