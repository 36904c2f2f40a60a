// `npm run dev`: prepares local state (dev vars, migrations, a default project), prints what a new
// user needs, then serves the worker on 127.0.0.1:8787 (or $PORT); wrangler's [build] step builds
// the assets.
// `npm run dev -- --clickhouse`: events in ClickHouse as in a ClickHouse deployment. It also serves
// local ClickHouse (chdb: `npm run clickhouse:install` once) on 127.0.0.1:8123 (or $CLICKHOUSE_PORT)
// with its data in .clickhouse/, applies the ClickHouse migrations (binding .clickhouse/ to the local D1, and
// stopping with what to do when it belongs to another: docs/operations.md), and runs the worker with
// CLICKHOUSE_URL naming it and the events queue bound (wrangler.clickhouse.toml, generated here
// from wrangler.toml; wrangler runs the queue and its consumer locally).
import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { belongsElsewhere, migrate } from "./lib/clickhouse-migrations.mjs";
import { startLocalClickHouse } from "./lib/local-clickhouse.mjs";
import { copyPersonsToMirror } from "./lib/person-mirror-copy.mjs";
import {
  applyMigrationsAsync,
  deploymentIdentityAsync,
  executeSqlAsync,
  portIsFree,
  ROOT,
  startWorker,
} from "./lib/local-worker.mjs";
import { withEventQueues } from "./lib/wrangler-config.mjs";

const PORT = Number(process.env.PORT ?? 8787);
const HOST = "127.0.0.1";
const CLICKHOUSE = process.argv.slice(2).includes("--clickhouse");
const CLICKHOUSE_PORT = Number(process.env.CLICKHOUSE_PORT ?? 8123);
const devVars = join(ROOT, ".dev.vars");
const base62 = (n) =>
  [...randomBytes(n * 2)]
    .filter((b) => b < 248)
    .slice(0, n)
    .map((b) => "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[b % 62])
    .join("");

// Stopping at any moment must take wrangler and its workerd along, or they keep the port. They run
// in a process group of their own (scripts/lib/local-worker.mjs), which a terminal's Ctrl-C does
// not reach, so every step below takes `stopping.signal` and kills its wrangler's group on abort;
// the handlers are in place before anything is spawned. The exit code is the shell's 128 + the
// signal's number (130 for SIGINT, 143 for SIGTERM), so a process manager or script sees a stop
// rather than success.
const stopping = new AbortController();
let stopCode = 0;
const stop = (code) => {
  if (stopping.signal.aborted) return;
  stopCode = code;
  stopping.abort();
};
process.on("SIGINT", () => stop(130));
process.on("SIGTERM", () => stop(143));
// The terminal closing; also the parent dying without passing a signal on (npm exits at once on a
// SIGTERM, leaving this process to init): then there is nobody to serve.
process.on("SIGHUP", () => stop(129));
watchParent(() => stop(129));

try {
  const code = await serve(stopping.signal);
  process.exit(stopping.signal.aborted ? stopCode : code);
} catch (error) {
  if (!stopping.signal.aborted) throw error;
  process.exit(stopCode);
}

async function serve(signal) {
  // wrangler would only log workerd's failure to listen and keep running, and the readiness check
  // would find whatever else answers there.
  if (!(await portIsFree(PORT, HOST))) {
    console.error(
      `Port ${PORT} on ${HOST} is in use (another \`npm run dev\`?). Stop that process or run \`PORT=${PORT + 1} npm run dev\`.`,
    );
    return 1;
  }

  if (CLICKHOUSE && !(await portIsFree(CLICKHOUSE_PORT, HOST))) {
    console.error(
      `Port ${CLICKHOUSE_PORT} on ${HOST} is in use (another \`npm run clickhouse\`?). Stop it or set CLICKHOUSE_PORT.`,
    );
    return 1;
  }

  if (!existsSync(devVars)) {
    copyFileSync(join(ROOT, ".dev.vars.example"), devVars);
    const text = readFileSync(devVars, "utf8").replace("ROOT_API_KEY=change-me", `ROOT_API_KEY=phx_root_${base62(40)}`);
    writeFileSync(devVars, text);
    console.log("Created .dev.vars from .dev.vars.example with a fresh root key.");
  }
  const rootKey = /^ROOT_API_KEY=(.*)$/m.exec(readFileSync(devVars, "utf8"))?.[1]?.trim();

  console.log("Applying local D1 migrations...");
  await applyMigrationsAsync({ quiet: true, signal });

  const firstProject = async () =>
    (await executeSqlAsync("SELECT id, name, api_token FROM projects ORDER BY id LIMIT 1", { signal }))[0];
  let project = await firstProject();
  const freshD1 = !project;
  if (!project) {
    const token = `phc_${base62(43)}`;
    await executeSqlAsync(`INSERT INTO projects (name, api_token) VALUES ('Default project', '${token}')`, { signal });
    project = await firstProject();
    console.log("Created the default project.");
  }

  let clickhouse;
  if (CLICKHOUSE) {
    console.log("Starting local ClickHouse...");
    try {
      clickhouse = await startLocalClickHouse({ port: CLICKHOUSE_PORT, signal });
    } catch (error) {
      if (signal.aborted) throw error;
      console.error(`${error.message}. (chdb missing? Run \`npm run clickhouse:install\` once.)`);
      return 1;
    }
  }
  try {
    return await serveWorker(signal, project, rootKey, clickhouse, freshD1);
  } finally {
    await clickhouse?.stop();
  }
}

async function serveWorker(signal, project, rootKey, clickhouse, freshD1) {
  const options = {};
  if (clickhouse) {
    const deployment = await deploymentIdentityAsync({ signal });
    if (!(await sameDeployment(clickhouse.url, deployment, freshD1))) return 1;
    console.log("Applying ClickHouse migrations...");
    await migrate({
      url: clickhouse.url,
      database: "default",
      deployment,
      log: () => {},
      // Persons this local D1 holds from runs without ClickHouse, copied into the mirror when it is first bound.
      copyPersons: (client) =>
        copyPersonsToMirror({
          client,
          read: (sql) => executeSqlAsync(sql, { signal }),
          log: (line) => console.log(line),
        }),
    });
    // At the root, so the paths in it (src/, drizzle/, public/) and wrangler's local state stay the same.
    options.config = join(ROOT, "wrangler.clickhouse.toml");
    writeFileSync(options.config, withEventQueues(readFileSync(join(ROOT, "wrangler.toml"), "utf8")));
    options.vars = { CLICKHOUSE_URL: clickhouse.url };
  }

  const url = `http://${HOST}:${PORT}`;
  console.log(`
edgehog is starting at ${url}
  project id     ${project.id} (${project.name})
  project token  ${project.api_token}   (SDKs: posthog-node's api key)
  root API key   ${rootKey}   (Authorization: Bearer ...; creates projects and personal API keys)
  API reference  ${url}/api/docs${clickhouse ? `\n  events         in local ClickHouse at ${clickhouse.url} (data in .clickhouse/), through the events queue` : ""}
`);

  const worker = await startWorker({ ...options, port: PORT, stdio: "inherit", timeoutMs: 10 * 60_000, signal });
  console.log(`Ready: ${worker.url}`);
  // Until wrangler exits: on its own (its exit code is ours) or stopped through `signal`.
  const code = await worker.exited;
  await worker.stop();
  return code ?? 0;
}

/**
 * Whether local ClickHouse (.clickhouse/) belongs with the local D1 (.wrangler/state). If not (a fresh D1
 * beside an old .clickhouse/, e.g. after removing .wrangler/), its new projects would read the old ones'
 * events: says so, with the command that resets both, and deletes nothing.
 */
async function sameDeployment(url, deployment, fresh) {
  const problem = await belongsElsewhere({ url, deployment, fresh });
  if (!problem) return true;
  console.error(`
Local ClickHouse (.clickhouse/) holds the events of another local D1: ${problem}.
Serving both would show the old projects' events to the new ones, so nothing is started (and nothing deleted).
To start over with both empty:

  rm -rf .clickhouse .wrangler/state && npm run dev -- --clickhouse
`);
  return false;
}

/** Calls `onGone` once this process's parent has exited. */
function watchParent(onGone) {
  // process.ppid is read once at start-up; on Linux /proc/self/stat has the current parent (init or
  // a subreaper once the first one is gone). Elsewhere, whether the first parent still exists.
  const parent = process.ppid;
  const alive = () => {
    try {
      const stat = readFileSync("/proc/self/stat", "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === parent;
    } catch {}
    try {
      process.kill(parent, 0);
      return true;
    } catch (error) {
      return error.code === "EPERM";
    }
  };
  const timer = setInterval(() => {
    if (alive()) return;
    clearInterval(timer);
    onGone();
  }, 1000);
  timer.unref();
}
