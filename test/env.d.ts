declare namespace Cloudflare {
  interface Env {
    DB: D1Database;
    FLAGS_KV: KVNamespace;
    ENDPOINT_MATERIALIZER: DurableObjectNamespace;
    ROOT_API_KEY: string;
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** The ClickHouse suite: the deployment identity its ClickHouse database is bound to. */
    TEST_DEPLOYMENT_ID: string;
  }
}

declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("../src/index");
  }
}

/** Vite's `?raw` imports: the file's text (used by the conformance suites to hash vendored files). */
declare module "*?raw" {
  const content: string;
  export default content;
}
