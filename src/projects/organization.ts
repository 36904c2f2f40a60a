/**
 * PostHog groups projects into organizations; edgehog has no organizations to manage, so a
 * deployment is one implicit organization holding every project. PostHog's own tooling (the
 * agent toolkit, `/api/users/@me/`) still needs its id, a UUID, which is fixed so it never changes
 * between requests or deployments.
 */
export const ORGANIZATION = {
  id: "00000000-0000-4000-8000-000000000001",
  name: "edgehog",
  slug: "edgehog",
} as const;
