import { createRouter } from "../lib/route";
import { sdkConfigRoutes } from "./config-routes";
import { sdkDefinitionRoutes } from "./definitions-routes";
import { sdkFlagRoutes } from "./flags-routes";

/** The SDK-facing surface: remote evaluation, local-evaluation definitions and remote config. */
export const sdkRoutes = createRouter()
  .route("/", sdkFlagRoutes)
  .route("/", sdkDefinitionRoutes)
  .route("/", sdkConfigRoutes);
