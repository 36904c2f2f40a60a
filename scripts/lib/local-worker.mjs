// Starting the worker locally with `wrangler dev`, shared by `npm run dev`, the interop tests,
// the docs check and the benchmarks. WRANGLER_BIN names another wrangler entry point to run
// (default: the project's own; the setup tests' stand-in).
import { execFileSync, spawn } from "node:child_process";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const WRANGLER = process.env.WRANGLER_BIN ?? join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
const WRANGLER_ENV = { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" };

/** Runs wrangler synchronously and returns its stdout. */
export function wrangler(args, options = {}) {
  return execFileSync(process.execPath, [WRANGLER, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: WRANGLER_ENV,
    stdio: ["ignore", "pipe", options.quiet ? "pipe" : "inherit"],
    maxBuffer: 64 * 1024 * 1024,
  });
}

/**
 * Runs wrangler in the background and resolves with its stdout. Unlike `wrangler()` the event loop
 * stays free, so a stop signal can abort it: `signal` kills wrangler and the workerd it starts.
 */
async function wranglerAsync(args, { quiet = false, signal } = {}) {
  const child = spawnGroup([WRANGLER, ...args], { stdio: ["ignore", "pipe", quiet ? "pipe" : "inherit"], signal });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr?.on("data", (d) => (stderr += d));
  const stop = stopper(child);
  signal?.addEventListener("abort", stop, { once: true });
  try {
    const [code] = await exitOf(child);
    // Done once the whole group is, not only wrangler: its workerd may outlive it.
    await stop();
    signal?.throwIfAborted();
    if (code !== 0) throw new Error(`wrangler ${args.join(" ")} exited with ${code}:\n${stderr}`);
    return stdout;
  } finally {
    signal?.removeEventListener("abort", stop);
  }
}

const persistArgs = (persistTo) => (persistTo ? ["--persist-to", persistTo] : []);
const migrationsArgs = (persistTo) => ["d1", "migrations", "apply", "DB", "--local", ...persistArgs(persistTo)];
function sqlArgs(sql, persistTo, remote = false) {
  return [
    "d1",
    "execute",
    "DB",
    remote ? "--remote" : "--local",
    "--json",
    "--command",
    sql,
    ...persistArgs(persistTo),
  ];
}
const lastRows = (out) => JSON.parse(out).at(-1)?.results ?? [];

export function applyMigrations({ persistTo, quiet = false } = {}) {
  return wrangler(migrationsArgs(persistTo), { quiet });
}

/** `applyMigrations`, abortable with `signal`. */
export function applyMigrationsAsync({ persistTo, quiet = false, signal } = {}) {
  return wranglerAsync(migrationsArgs(persistTo), { quiet, signal });
}

/** Runs SQL against the local D1 database (or with `remote`, the deployed one) and returns the rows of the last statement. */
export function executeSql(sql, { persistTo, remote = false } = {}) {
  return lastRows(wrangler(sqlArgs(sql, persistTo, remote), { quiet: true }));
}

/**
 * The deployment's identity (its D1's `deployment` row, src/db/schema.ts): of the local D1, or with
 * `remote` the deployed one. Throws as `executeSql` does when D1 cannot be read or has no such table.
 */
export function deploymentIdentity({ persistTo, remote = false } = {}) {
  return executeSql(IDENTITY_SQL, { persistTo, remote })[0]?.id;
}

/** `deploymentIdentity` of the local D1, abortable with `signal`. */
export async function deploymentIdentityAsync({ persistTo, signal } = {}) {
  return (await executeSqlAsync(IDENTITY_SQL, { persistTo, signal }))[0]?.id;
}

const IDENTITY_SQL = "SELECT id FROM deployment";

/** `executeSql`, abortable with `signal`. */
export async function executeSqlAsync(sql, { persistTo, signal } = {}) {
  return lastRows(await wranglerAsync(sqlArgs(sql, persistTo), { quiet: true, signal }));
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

/** Whether something may listen on `port` now: false when it is in use. */
export function portIsFree(port, host = "127.0.0.1") {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", (error) => (error.code === "EADDRINUSE" ? resolve(false) : reject(error)));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * Starts `wrangler dev` (with `config` instead of wrangler.toml when given) and resolves once the worker answers /_health.
 * Returns `{ url, process, exited, stop, output }`: `exited` resolves with wrangler's exit code;
 * `stop()` resolves once wrangler and every process it started have exited.
 * Aborting `signal` (before or after readiness) stops the worker; while waiting for readiness the
 * promise then rejects with the signal's reason once the worker is stopped.
 */
export async function startWorker({
  port,
  persistTo,
  config,
  vars = {},
  stdio = "pipe",
  timeoutMs = 120_000,
  signal,
} = {}) {
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
    ...(config ? ["--config", config] : []),
    ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
  ];
  const child = spawnGroup(args, { stdio: stdio === "inherit" ? "inherit" : ["ignore", "pipe", "pipe"], signal });
  const exited = exitOf(child).then(([code]) => code);
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const stop = stopper(child);
  signal?.addEventListener("abort", stop, { once: true });
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`wrangler dev exited early:\n${output}`);
      try {
        const res = await fetch(`${url}/_health`, { signal });
        if (res.ok) return { url, process: child, exited, stop, output: () => output };
      } catch {}
      await sleep(250, undefined, { signal }).catch(() => {});
      signal?.throwIfAborted();
    }
    throw new Error(`wrangler dev did not become ready within ${timeoutMs} ms:\n${output}`);
  } catch (error) {
    await stop();
    throw error;
  }
}

// wrangler runs in a process group of its own (a new session, on POSIX), with the workerd and
// esbuild processes it starts: one kill of the group reaches them all, where wrangler.js dying
// abruptly would leave its children running. Being outside the terminal's session also keeps a
// Ctrl-C or hang-up from reaching it: the caller decides when it stops (`signal`, `stop()`).
const GROUPS = process.platform !== "win32";
const liveGroups = new Set();

// The last resort when this process exits before stopping them (an uncaught error, process.exit):
// nothing may wait in an exit handler, so no grace period.
process.on("exit", () => {
  for (const pid of liveGroups) signalGroup(pid, "SIGKILL");
});

/** Starts `node ...args` in a process group of its own (see above); `signal` is checked first. */
export function spawnGroup(args, { stdio, signal, env }) {
  // Checked in the same tick as the spawn, so no abort can fall between the check and the
  // caller's abort listener.
  signal?.throwIfAborted();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio,
    env: env ? { ...WRANGLER_ENV, ...env } : WRANGLER_ENV,
    detached: GROUPS,
  });
  if (GROUPS && child.pid !== undefined) liveGroups.add(child.pid);
  return child;
}

/** `stop()` for `child`'s group; every call shares the first one's promise. */
export function stopper(child) {
  let stopping;
  return () => (stopping ??= killGroup(child));
}

/** Resolves with `[code, signal]` once `child` has exited. */
export function exitOf(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve([child.exitCode, child.signalCode]);
    else child.once("exit", (code, signal) => resolve([code, signal]));
  });
}

function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is gone
  }
}

/**
 * Stops `child` and everything in its process group: SIGTERM, then SIGKILL after 5 s. Resolves once
 * no process of the group is left (a zero signal to the group fails), which is what frees the port:
 * workerd, not wrangler, listens on it.
 */
async function killGroup(child, graceMs = 5000) {
  if (!GROUPS) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await Promise.race([exitOf(child), sleep(graceMs)]);
    return;
  }
  const pid = child.pid;
  if (pid === undefined) return; // spawn failed; there is no group
  const killAt = Date.now() + graceMs;
  // Bounded even after SIGKILL: members this process cannot reap (zombies under a PID 1 that never
  // reaps orphans) would otherwise keep the group "alive" for ever.
  const giveUpAt = killAt + 2000;
  let signal = "SIGTERM";
  while (signalGroup(pid, signal) && Date.now() < giveUpAt) {
    signal = Date.now() < killAt ? 0 : "SIGKILL";
    await sleep(50);
  }
  liveGroups.delete(pid);
}
