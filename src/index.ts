import { createApp } from "./app";
import type { Env } from "./env";

export { EndpointMaterializer } from "./endpoints/materializer";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
