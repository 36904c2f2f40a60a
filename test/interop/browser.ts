import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser, type Page } from "playwright-core";
// @ts-expect-error -- a plain ESM script shared with `npm run check:docs`
import { CHROMIUM, CHROMIUM_FLAGS, hasChromium } from "../../scripts/lib/docs-in-chromium.mjs";

/** True where Debian's chromium is installed (CI installs it); browser tests are skipped elsewhere. */
export const chromiumAvailable: () => boolean = hasChromium;

/** Headless Chromium through playwright-core (no browser download), with the flags the docs check uses. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
}

export interface StaticFile {
  type: string;
  body: string | Buffer;
}

/** Serves fixed files on an ephemeral loopback port: an origin other than the worker's. */
export async function serveFiles(
  files: Record<string, StaticFile>,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const file = files[new URL(req.url ?? "/", "http://x").pathname];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": file.type, "cache-control": "no-store" }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

/**
 * What a page reports as broken, as readable lines: console errors (CORS rejections show up
 * there), uncaught exceptions, requests that failed, and HTTP errors from `origin`. Also lists
 * every request the page made to `origin`, as "METHOD /path".
 */
export function watchPage(page: Page, origin: string) {
  const problems: string[] = [];
  const requests: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console error: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`uncaught: ${err.message}`));
  page.on("requestfailed", (req) =>
    problems.push(`failed: ${req.method()} ${req.url()} (${req.failure()?.errorText})`),
  );
  page.on("request", (req) => {
    const url = new URL(req.url());
    if (url.origin === origin) requests.push(`${req.method()} ${url.pathname}`);
  });
  page.on("response", (res) => {
    if (res.status() >= 400 && new URL(res.url()).origin === origin) {
      problems.push(`HTTP ${res.status()}: ${res.request().method()} ${res.url()}`);
    }
  });
  return { problems, requests };
}
