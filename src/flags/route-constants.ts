import type { RouteAuth } from "../lib/route";

export const BASE = "/api/projects/{project_id}/feature_flags";
export const tags = ["feature flags"];
export const read: RouteAuth = { kind: "personal", scopes: ["feature_flag:read"] };
export const write: RouteAuth = { kind: "personal", scopes: ["feature_flag:write"] };
export const activityRead: RouteAuth = { kind: "personal", scopes: ["activity_log:read"] };
