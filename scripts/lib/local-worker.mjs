// Starting the worker locally with `wrangler dev`, shared by `npm run dev`, the interop tests,
// the docs check and the benchmarks.
import { execFileSync, spawn } from "node:child_process";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const WRANGLER = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");

/** Runs wrangler synchronously and returns its stdout. */
export function wrangler(args, options = {}) {
  return execFileSync(process.execPath, [WRANGLER, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
    stdio: ["ignore", "pipe", options.quiet ? "pipe" : "inherit"],
    maxBuffer: 64 * 1024 * 1024,
  });
}

const persistArgs = (persistTo) => (persistTo ? ["--persist-to", persistTo] : []);

export function applyMigrations({ persistTo, quiet = false } = {}) {
  return wrangler(["d1", "migrations", "apply", "DB", "--local", ...persistArgs(persistTo)], { quiet });
}

/** Runs SQL against the local D1 database and returns the rows of the last statement. */
export function executeSql(sql, { persistTo } = {}) {
  const out = wrangler(["d1", "execute", "DB", "--local", "--json", "--command", sql, ...persistArgs(persistTo)], {
    quiet: true,
  });
  const results = JSON.parse(out);
  return results.at(-1)?.results ?? [];
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `wrangler dev` and resolves once the worker answers /_health.
 * Returns `{ url, process, stop }`.
 */
export async function startWorker({ port, persistTo, vars = {}, stdio = "pipe", timeoutMs = 120_000 } = {}) {
  port ??= await freePort();
  const inspectorPort = await freePort();
  const args = [
    WRANGLER,
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--show-interactive-dev-session=false",
    ...persistArgs(persistTo),
    ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
  ];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: stdio === "inherit" ? "inherit" : ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
    detached: process.platform !== "win32",
  });
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        child.kill("SIGTERM");
      }
      setTimeout(() => {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {}
        resolve();
      }, 5000).unref();
    });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited early:\n${output}`);
    try {
      const res = await fetch(`${url}/_health`);
      if (res.ok) return { url, process: child, stop, output: () => output };
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`wrangler dev did not become ready within ${timeoutMs} ms:\n${output}`);
}
