import type { Context } from "hono";
import type { AppEnv } from "../env";
import { authenticateKey, recordKeyUse } from "../keys/service";
import type { Db } from "../db/client";
import { getProject, resolveCurrentProject, type Project } from "../projects/service";
import { authenticationFailed, notAuthenticated, notFound, permissionDenied } from "../lib/errors";
import { ROOT_API_KEY, setting } from "../lib/config";
import { canReachProject, type Principal } from "../lib/auth/principal";
import { firstMissingScope } from "../lib/auth/scopes";
import type { Authenticator } from "../lib/route";

const BEARER = /^Bearer\s+(\S.*)$/;

/** Keys resolved recently, for routes that opt in with `principalCacheMs` (bounded; oldest dropped first). */
const recentPrincipals = new Map<string, { principal: Principal; at: number }>();
function rememberPrincipal(secret: string, principal: Principal) {
  recentPrincipals.delete(secret);
  recentPrincipals.set(secret, { principal, at: Date.now() });
  if (recentPrincipals.size > 1000) recentPrincipals.delete(recentPrincipals.keys().next().value!);
}

/**
 * The `Authenticator` that app.ts gives every route (lib/route.ts declares what a route requires;
 * checking it needs keys and projects, which lib may not import).
 *
 * Authenticates a personal API key or the root key, resolves the `:project_id` of the path
 * (404 when unknown, 403 when the key may not reach it), then checks the route's scopes.
 */
export const authenticate: Authenticator = async (c, auth, next) => {
  const cacheMs = auth.kind === "personal" ? (auth.principalCacheMs ?? 0) : 0;
  const header = c.req.header("authorization");
  if (!header) throw notAuthenticated();
  const match = BEARER.exec(header);
  if (!match) throw authenticationFailed("Authorization header must be of the form 'Bearer <personal API key>'.");
  const secret = match[1].trim();
  const cached = cacheMs ? recentPrincipals.get(secret) : undefined;
  const fresh = cached && Date.now() - cached.at < cacheMs;
  const principal = fresh ? cached.principal : await authenticateKey(c.get("db"), setting(c.env, ROOT_API_KEY), secret);
  if (!principal) throw authenticationFailed("Personal API key found in request Authorization header is invalid.");
  if (cacheMs && !fresh) rememberPrincipal(secret, principal);
  c.set("principal", principal);
  if (principal.kind === "personal_api_key" && !fresh)
    c.executionCtx.waitUntil(recordKeyUse(c.get("db"), principal.keyId));

  const projectParam = c.req.param("project_id");
  if (projectParam !== undefined) await resolveProject(c, principal, projectParam);

  if (auth.kind === "root") {
    if (principal.kind !== "root") throw permissionDenied("This action requires the root API key.");
  } else if (principal.kind === "personal_api_key") {
    const missing = firstMissingScope(principal.scopes, auth.scopes);
    if (missing) throw permissionDenied(`API key missing required scope '${missing}'`);
  }
  await next();
};

async function resolveProject(c: Context<AppEnv>, principal: Principal, raw: string) {
  const db = c.get("db");
  const project =
    raw === "@current" ? await resolveCurrentProject(db, principal, c.req.query("token")) : await projectById(db, raw);
  if (!project) throw notFound("Project not found.");
  if (!canReachProject(principal, project.id)) {
    throw permissionDenied(`API key does not have access to the requested project: ID ${project.id}.`);
  }
  c.set("project", project);
}

function projectById(db: Db, raw: string): Promise<Project | undefined> | undefined {
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  return Number.isSafeInteger(id) ? getProject(db, id) : undefined;
}
