import { jsonResponse as json } from "../lib/openapi";
import { createRouter, defineRoute } from "../lib/route";
import { currentProjectOf } from "../projects/service";
import { userRecord, UserSchema } from "./schema";

const me = defineRoute({
  method: "get",
  path: "/api/users/@me",
  tags: ["users"],
  summary: "The calling key, as PostHog's tooling expects a user: its project and organization",
  auth: { kind: "personal", scopes: [] },
  responses: { 200: json(UserSchema, "The caller") },
});

export const userRoutes = createRouter().openapi(me, async (c) => {
  const principal = c.get("principal");
  const { project, reachable } = await currentProjectOf(c.get("db"), principal);
  return c.json(userRecord(principal, project ?? reachable[0]), 200);
});
