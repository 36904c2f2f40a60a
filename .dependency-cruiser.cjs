/**
 * The dependency rules of docs/architecture.md, checked by `npm run lint` (and so by `.ci/run`).
 *
 * Layers, bottom to top; each may import only from the layers below it:
 *   src/db/      the one Drizzle schema and the client
 *   src/lib/     errors, route declaration, pagination, json, time and zones, d1 helpers
 *   src/shared/  what several areas use: property filters and their SQL, cohort membership SQL,
 *                the analytics store
 *   areas        src/<area>/ (persons, flags, endpoints, hogql, capture, sdk, ...); one area may use
 *                another's services as long as no two folders need each other
 *   top          src/app.ts and src/index.ts wire everything together
 * src/env.ts only declares types (the Worker's bindings and request variables): every layer reads
 * it, and it is left out of the graph, since types vanish at run time (ESLint's
 * consistent-type-imports keeps its imports type-only).
 */
const AREA = "^src/(?!lib/|db/|shared/|app\\.ts$|index\\.ts$|env\\.ts$)[^/]+/";
const ROUTES = "routes(\\.ts$|/)";

module.exports = {
  forbidden: [
    {
      name: "no-module-cycles",
      severity: "error",
      comment: "A module must not import itself through others: split the shared part into a lower module.",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-folder-cycles",
      severity: "error",
      scope: "folder",
      comment:
        "Folders depend one way: when two folders need each other, the shared part belongs in a folder below both.",
      from: {},
      to: { circular: true },
    },
    {
      name: "lib-imports-nothing-above",
      severity: "error",
      comment: "src/lib/ may import only from src/lib/, src/db/ and packages.",
      from: { path: "^src/lib/" },
      to: { path: "^src/", pathNot: "^src/(lib|db)/" },
    },
    {
      name: "db-imports-nothing",
      severity: "error",
      comment: "src/db/ holds the schema and the client, the bottom of the tree: it imports nothing else of ours.",
      from: { path: "^src/db/" },
      to: { path: "^src/", pathNot: "^src/db/" },
    },
    {
      name: "shared-imports-no-area",
      severity: "error",
      comment: "src/shared/ sits below the areas: it may import src/lib/, src/db/ and src/shared/ only.",
      from: { path: "^src/shared/" },
      to: { path: AREA },
    },
    {
      name: "nothing-imports-the-top",
      severity: "error",
      comment: "app.ts and index.ts wire the areas together; nothing below imports them.",
      from: { path: "^src/", pathNot: "^src/(app|index)\\.ts$" },
      to: { path: "^src/(app|index)\\.ts$" },
    },
    {
      name: "no-route-to-route",
      severity: "error",
      comment:
        "A route file parses input, calls a service and shapes output; what two route files share belongs in a service or schema module.",
      from: { path: ROUTES, pathNot: "^src/(app|index)\\.ts$" },
      to: { path: ROUTES },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["^src/hogql/generated/", "^src/env\\.ts$"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
    },
  },
};
