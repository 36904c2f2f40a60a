// workerd implements node:zlib under the nodejs_compat flag (wrangler.toml). The worker's type
// set is @cloudflare/workers-types without Node's, so the one function used is declared here.
declare module "node:zlib" {
  export function gunzipSync(buffer: Uint8Array, options?: { maxOutputLength?: number }): Uint8Array;
}
