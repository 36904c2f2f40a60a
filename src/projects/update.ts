import type { Db } from "../db/client";
import type { Env } from "../env";
import { refreshFlagDefinitions } from "../flags/definitions-cache";
import { updateProject, type Project, type ProjectSettings } from "./service";

/** Applies a PATCH; the cached flag definitions carry the project's time zone, so a new zone rewrites them. */
export async function changeProjectSettings(
  env: Env,
  db: Db,
  project: Project,
  input: ProjectSettings,
): Promise<Project> {
  const updated = (await updateProject(db, project.id, input)) ?? project;
  if (updated.timezone !== project.timezone) await refreshFlagDefinitions(env, db, project.id);
  return updated;
}
