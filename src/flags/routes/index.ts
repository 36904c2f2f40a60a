import { createRouter } from "../../lib/route";
import { flagCrudRoutes } from "./crud";
import { flagOperationRoutes } from "./operations";

/**
 * Every management route of the flags area (the SDK surfaces live in src/sdk/). The operations
 * come first so `/feature_flags/local_evaluation` is not read as `/feature_flags/{id}`.
 */
export const flagRoutes = createRouter().route("/", flagOperationRoutes).route("/", flagCrudRoutes);
