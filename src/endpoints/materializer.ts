import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

/**
 * One instance per saved-query endpoint: serializes materialization refreshes and holds the
 * materialized rows in its own SQLite storage. Its behaviour arrives with the endpoints area.
 */
export class EndpointMaterializer extends DurableObject<Env> {}
