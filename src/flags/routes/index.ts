import { createRouter } from "../../lib/route";
import { flagCrudRoutes } from "./crud";

/** Every management route of the flags area (the SDK surfaces live in src/sdk/). */
export const flagRoutes = createRouter().route("/", flagCrudRoutes);
