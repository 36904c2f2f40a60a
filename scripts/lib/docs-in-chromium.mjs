// Renders /api/docs in headless Chromium with every host but loopback unresolvable (so a CDN
// reference could not load) and returns the operations the page lists, as "METHOD /path".
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const hasChromium = () => existsSync(CHROMIUM);

/**
 * Flags for headless Chromium on these machines: no sandbox (root), no background connections
 * (the closed network refuses them), and every host but loopback unresolvable, so a page that
 * reaches for the internet fails visibly.
 */
export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
];

export function renderedOperations(docsUrl) {
  const profile = mkdtempSync(join(tmpdir(), "edgehog-chromium-"));
  try {
    const dom = execFileSync(
      CHROMIUM,
      [
        "--headless",
        ...CHROMIUM_FLAGS,
        `--user-data-dir=${profile}`,
        "--virtual-time-budget=15000",
        "--dump-dom",
        docsUrl,
      ],
      { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "ignore"], timeout: 120_000 },
    );
    return [...dom.matchAll(/class="opblock-summary-method">([A-Z]+)<\/span>.*?data-path="([^"]+)"/gs)].map(
      ([, method, path]) => `${method} ${path.replace(/&amp;/g, "&")}`,
    );
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

export const schemaOperations = (schema) =>
  Object.entries(schema.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
