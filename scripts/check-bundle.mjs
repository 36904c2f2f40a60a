// `npm run check:bundle`: builds the deploy bundle exactly as `wrangler deploy` would (its [build]
// step included) without uploading it, prints its size, and fails when the compressed size is over
// the Workers Free plan's limit, so a dependency that would make the worker undeployable there is
// caught in CI rather than at a user's first deploy.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { wrangler } from "./lib/local-worker.mjs";

/** Workers Free plan: 3 MiB after compression (Paid: 10 MiB). */
const BUDGET_KIB = 3 * 1024;

const outdir = mkdtempSync(join(tmpdir(), "edgehog-bundle-"));
try {
  const output = wrangler(["deploy", "--dry-run", "--outdir", outdir], { quiet: true });
  // Wrangler's own figure, the one Cloudflare checks: "Total Upload: 2608.54 KiB / gzip: 614.94 KiB".
  const match = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(output);
  if (!match) {
    console.error(`check:bundle: wrangler's output has no "Total Upload" line:\n${output}`);
    process.exit(1);
  }
  const [raw, gzip] = [Number(match[1]), Number(match[2])];
  const share = ((gzip / BUDGET_KIB) * 100).toFixed(0);
  console.log(
    `Worker bundle: ${raw.toFixed(0)} KiB, ${gzip.toFixed(0)} KiB compressed (${share}% of the ${BUDGET_KIB} KiB Free plan limit)`,
  );
  if (gzip > BUDGET_KIB) {
    console.error(
      `check:bundle: the compressed bundle (${gzip.toFixed(0)} KiB) exceeds the Workers Free plan's ${BUDGET_KIB} KiB; ` +
        `find what grew with \`npx wrangler deploy --dry-run --outdir dist --metafile\`.`,
    );
    process.exit(1);
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
