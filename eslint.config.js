// Lint rules for our TypeScript and scripts (`npm run lint`); formatting is Prettier's (`npm run format`).
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      "public/",
      ".wrangler/",
      "bench/data/",
      "src/hogql/generated/",
      "drizzle/",
      ".clickhouse/",
      "local-clickhouse/node_modules/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Type-only imports stay `import type`, so src/env.ts (types only) never pulls code in.
      "@typescript-eslint/consistent-type-imports": [
        "error",
        { fixStyle: "inline-type-imports", disallowTypeAnnotations: false },
      ],
      "no-empty": ["error", { allowEmptyCatch: true }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Tests, benchmarks and scripts read untyped JSON from the API and SDKs.
    files: ["test/**", "bench/**", "scripts/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["bench/**", "scripts/**", "test/scripts/*.mjs", "local-clickhouse/**", "*.cjs", "*.js"],
    languageOptions: { globals: globals.node },
  },
  {
    files: ["*.cjs"],
    languageOptions: { sourceType: "commonjs" },
  },
);
