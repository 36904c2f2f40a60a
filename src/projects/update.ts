import type { Db } from "../db/client";
import { type Project, type ProjectSettings, updateProject } from "./service";

/**
 * Applies a PATCH; the cached flag definitions carry the project's time zone, so a new zone
 * rebuilds them (`refreshFlagDefinitions` is the request's, see env.ts).
 */
export async function changeProjectSettings(
  db: Db,
  refreshFlagDefinitions: (projectId: number) => Promise<void>,
  project: Project,
  input: ProjectSettings,
): Promise<Project> {
  const updated = (await updateProject(db, project.id, input)) ?? project;
  if (updated.timezone !== project.timezone) await refreshFlagDefinitions(project.id);
  return updated;
}
