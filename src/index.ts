import { createApp } from "./app";
import type { Env } from "./env";
import { scheduled } from "./scheduled";

export { EndpointMaterializer } from "./endpoints/materializer";

const app = createApp();

export default {
  fetch: app.fetch,
  scheduled,
} satisfies ExportedHandler<Env>;
