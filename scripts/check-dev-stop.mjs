// `npm run check:dev-stop`: stopping `npm run dev` at any moment (Ctrl-C or SIGTERM; during the
// migrations, while wrangler starts, once it serves; its parent dying) leaves no wrangler or
// workerd behind and its port free, and a port in use is refused before wrangler starts.
// dev.mjs runs in a temporary copy of the project, so a developer's .dev.vars and local D1
// (.wrangler/) stay as they are. Linux only: the process tree is read from /proc.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort, portIsFree, ROOT } from "./lib/local-worker.mjs";

const HOST = "127.0.0.1";
const WRANGLER_DEV = /wrangler\.js dev /;
const MIGRATIONS = /wrangler\.js d1 migrations apply /;
const DEV_SCRIPT = /scripts\/dev\.mjs/;

/**
 * Each case starts dev (`node scripts/dev.mjs`, or `npm run dev` as a developer types it), stops it
 * once `trigger` holds and expects every process of its tree gone by the time dev.mjs has exited.
 */
const cases = [
  {
    name: "Ctrl-C in a terminal (SIGINT to npm's whole process group) during the migrations",
    npm: true,
    trigger: (dev) => dev.running(MIGRATIONS),
    stop: (dev) => process.kill(-dev.child.pid, "SIGINT"),
  },
  {
    name: "SIGINT to dev.mjs while wrangler dev starts (before /_health answers)",
    trigger: (dev) => dev.running(WRANGLER_DEV),
    before: async (dev) => {
      if (await healthy(dev.port)) throw new Error("the worker was already ready: not a start-up stop");
    },
    stop: (dev) => dev.child.kill("SIGINT"),
    exitCode: 130,
  },
  {
    name: "SIGTERM to dev.mjs once it serves",
    trigger: (dev) => dev.output().includes("Ready: "),
    before: async (dev) => {
      if (!(await healthy(dev.port))) throw new Error("printed Ready but /_health does not answer 200");
    },
    stop: (dev) => dev.child.kill("SIGTERM"),
    exitCode: 143,
  },
  {
    name: "SIGTERM to dev.mjs during the migrations",
    trigger: (dev) => dev.running(MIGRATIONS),
    stop: (dev) => dev.child.kill("SIGTERM"),
    exitCode: 143,
  },
  {
    name: "SIGTERM to npm once it serves (npm exits at once: dev.mjs's parent dies)",
    npm: true,
    trigger: (dev) => dev.output().includes("Ready: "),
    stop: (dev) => dev.child.kill("SIGTERM"),
  },
];

if (!existsSync("/proc/self/stat")) {
  console.log("check:dev-stop skipped: it reads the process tree from /proc (Linux).");
  process.exit(0);
}

const project = copyProject();
const failures = [];
let running; // the dev being checked, for the handlers below
// This check stopped (Ctrl-C) must not leave its own dev running either.
for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, async () => {
    await running?.cleanUp();
    rmSync(project, { recursive: true, force: true });
    process.exit(1);
  });
try {
  const total = cases.length + 1;
  for (const [i, c] of cases.entries()) await runCase(`[${i + 1}/${total}] ${c.name}`, () => stopCase(c));
  await runCase(`[${total}/${total}] port in use`, portInUseCase);
} finally {
  rmSync(project, { recursive: true, force: true });
}
if (failures.length) {
  console.error(`\ncheck:dev-stop FAILED (${failures.length} of ${cases.length + 1}):\n  ${failures.join("\n  ")}`);
  process.exit(1);
}
console.log("\ncheck:dev-stop: every stop left no process behind and the port free.");

async function runCase(title, run) {
  console.log(title);
  const started = Date.now();
  try {
    const detail = await run();
    console.log(`  ok: ${detail} (${seconds(Date.now() - started)} in all)`);
  } catch (error) {
    console.error(`  FAILED: ${error.message}`);
    failures.push(`${title}: ${error.message.split("\n")[0]}`);
  }
}

function stopCase({ npm = false, trigger, before, stop, exitCode }) {
  return withDev({ npm }, async (dev) => {
    await until(() => trigger(dev) || dev.exited(), 90_000, "the moment to stop it");
    if (dev.exited()) throw new Error("dev exited before the moment to stop it");
    await before?.(dev);
    const stoppedAt = Date.now();
    stop(dev);
    // npm exits before dev.mjs is done: what counts is dev.mjs's own exit.
    await until(() => !dev.running(DEV_SCRIPT), 20_000, "dev.mjs to exit; it is still running");
    const stopTime = Date.now() - stoppedAt;
    const left = dev.leftovers();
    if (left.length) throw new Error(`left running after dev.mjs exited:\n${describe(left)}`);
    if (!(await portIsFree(dev.port, HOST))) throw new Error(`port ${dev.port} is still in use after dev.mjs exited`);
    if (exitCode !== undefined) {
      const status = await dev.status;
      if (status.code !== exitCode) throw new Error(`exited with ${JSON.stringify(status)}, expected code ${exitCode}`);
    }
    const seen = dev.recorded();
    const workers = seen.filter((p) => /wrangler|workerd/.test(p.cmd)).length;
    return `dev.mjs exited ${seconds(stopTime)} after the signal; none left of the ${seen.length} processes seen (${workers} wrangler or workerd)`;
  });
}

async function portInUseCase() {
  const holder = createServer();
  await new Promise((resolve) => holder.listen(0, HOST, resolve));
  const port = holder.address().port;
  try {
    return await withDev({ port }, async (dev) => {
      await until(() => dev.exited() || dev.running(/wrangler\.js /), 60_000, "dev to exit");
      if (!dev.exited()) throw new Error("wrangler was started although the port is in use");
      const { code } = await dev.status;
      const message = `Port ${port} on ${HOST} is in use`;
      if (code === 0) throw new Error("dev exited with 0");
      if (!dev.output().includes(message)) throw new Error(`the output does not say "${message}"`);
      return `exited with ${code}, saying "${message}"`;
    });
  } finally {
    holder.close();
  }
}

/** Runs `check` against a dev started on `port` (a free one by default); a failure carries dev's output. */
async function withDev({ port, npm = false }, check) {
  const dev = (running = startDev(port ?? (await freePort()), { npm }));
  try {
    return await check(dev);
  } catch (error) {
    throw new Error(`${error.message}\n--- dev's output (end) ---\n${dev.output().slice(-1500)}`, { cause: error });
  } finally {
    await dev.cleanUp();
    running = undefined;
  }
}

/** A copy of the project (without git, node_modules and local state) whose node_modules is ours. */
function copyProject() {
  const skip = new Set([".git", "node_modules", ".wrangler", ".dev.vars", ".tmp", "dist", join("bench", "data")]);
  const dir = mkdtempSync(join(tmpdir(), "edgehog-dev-stop-"));
  cpSync(ROOT, dir, { recursive: true, filter: (src) => !skip.has(relative(ROOT, src)) });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  return dir;
}

/** Starts dev in its own process group and records every process of its tree while it runs. */
function startDev(port, { npm = false } = {}) {
  const [command, args] = npm ? ["npm", ["run", "dev"]] : [process.execPath, ["scripts/dev.mjs"]];
  const child = spawn(command, args, {
    cwd: project,
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const status = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const tree = new Map(); // `${pid}:${start}` -> { pid, start, cmd }
  const record = () => {
    const table = processTable();
    // Descendants of the dev process and of anything recorded before (an orphan's children too).
    const roots = [child.pid, ...[...tree.values()].filter((p) => isAlive(p, table)).map((p) => p.pid)];
    const members = new Set(roots);
    for (let grew = true; grew;) {
      grew = false;
      for (const p of table.values()) {
        if (members.has(p.pid) || !members.has(p.ppid)) continue;
        members.add(p.pid);
        grew = true;
      }
    }
    for (const pid of members) {
      const p = table.get(pid);
      if (p && !tree.has(`${pid}:${p.start}`))
        tree.set(`${pid}:${p.start}`, { pid, start: p.start, cmd: cmdline(pid) });
    }
  };
  record();
  const timer = setInterval(record, 50);
  const living = () => {
    const table = processTable();
    return [...tree.values()].filter((p) => isAlive(p, table));
  };
  return {
    child,
    port,
    status,
    output: () => output,
    exited: () => child.exitCode !== null || child.signalCode !== null,
    running: (pattern) => living().some((p) => pattern.test(p.cmd)),
    recorded: () => [...tree.values()],
    /** What is alive of the recorded tree, plus any wrangler or workerd serving this port. */
    leftovers: () => {
      record();
      const byPort = [...processTable().values()].filter(
        (p) => p.state !== "Z" && servesPort(cmdline(p.pid), port) && ![...tree.values()].some((t) => t.pid === p.pid),
      );
      return [...living(), ...byPort.map((p) => ({ pid: p.pid, cmd: cmdline(p.pid) }))];
    },
    /**
     * Kills what a failed case left: only processes recorded here, again until none is left (one
     * may start a child while its parent is being killed).
     */
    cleanUp: async () => {
      for (let tries = 0; tries < 40; tries++) {
        record();
        const left = living();
        if (!left.length) break;
        for (const p of left) {
          try {
            process.kill(p.pid, "SIGKILL");
          } catch {}
        }
        await sleep(50);
      }
      clearInterval(timer);
    },
  };
}

/** pid -> { pid, ppid, state, start } from /proc; `start` tells a reused pid apart. */
function processTable() {
  const table = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // After "pid (comm) ": state, ppid, ... starttime is the 20th field.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      table.set(Number(name), { pid: Number(name), state: fields[0], ppid: Number(fields[1]), start: fields[19] });
    } catch {} // it exited while being read
  }
  return table;
}

function isAlive(p, table) {
  const now = table.get(p.pid);
  return now !== undefined && now.start === p.start && now.state !== "Z";
}

function cmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}

function servesPort(cmd, port) {
  return /wrangler|workerd/.test(cmd) && new RegExp(`(--port |${HOST}:)${port}\\b`).test(cmd);
}

function describe(processes) {
  return processes.map((p) => `  pid ${p.pid}: ${p.cmd.slice(0, 160)}`).join("\n");
}

async function healthy(port) {
  try {
    return (await fetch(`http://${HOST}:${port}/_health`, { signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

async function until(condition, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs / 1000} s for ${what}`);
    await sleep(50);
  }
}
