/** Who is calling: the deployment's root key, or one personal API key. */
export type Principal =
  | { kind: "root"; label: "root" }
  | {
      kind: "personal_api_key";
      keyId: number;
      label: string;
      scopes: string[];
      /** Null means the key may reach every project. */
      scopedProjects: number[] | null;
    };

/** How PostHog renders the actor of an activity log entry (`user`). */
export function actorOf(principal: Principal): { first_name: string; email: string | null } {
  return { first_name: principal.label, email: null };
}

export function canReachProject(principal: Principal, projectId: number): boolean {
  if (principal.kind === "root" || principal.scopedProjects === null) return true;
  return principal.scopedProjects.includes(projectId);
}
