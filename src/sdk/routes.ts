import { createRouter } from "../lib/route";
import { sdkDefinitionRoutes } from "./definitions-routes";
import { sdkFlagRoutes } from "./flags-routes";

/** The SDK-facing surface: remote evaluation and local-evaluation definitions. */
export const sdkRoutes = createRouter().route("/", sdkFlagRoutes).route("/", sdkDefinitionRoutes);
