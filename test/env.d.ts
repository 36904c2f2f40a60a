declare namespace Cloudflare {
  interface Env {
    DB: D1Database;
    FLAGS_KV: KVNamespace;
    ENDPOINT_MATERIALIZER: DurableObjectNamespace;
    ROOT_API_KEY: string;
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
  }
}

declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("../src/index");
  }
}
