// `npm run dev`: prepares local state (dev vars, assets, migrations, a default project),
// prints what a new user needs, then serves the worker on 127.0.0.1:8787.
import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { applyMigrations, executeSql, ROOT, startWorker } from "./lib/local-worker.mjs";
import "./build-assets.mjs";

const PORT = Number(process.env.PORT ?? 8787);
const devVars = join(ROOT, ".dev.vars");
const base62 = (n) =>
  [...randomBytes(n * 2)]
    .filter((b) => b < 248)
    .slice(0, n)
    .map((b) => "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[b % 62])
    .join("");

if (!existsSync(devVars)) {
  copyFileSync(join(ROOT, ".dev.vars.example"), devVars);
  const text = readFileSync(devVars, "utf8").replace("ROOT_API_KEY=change-me", `ROOT_API_KEY=phx_root_${base62(40)}`);
  writeFileSync(devVars, text);
  console.log("Created .dev.vars from .dev.vars.example with a fresh root key.");
}
const rootKey = /^ROOT_API_KEY=(.*)$/m.exec(readFileSync(devVars, "utf8"))?.[1]?.trim();

console.log("Applying local D1 migrations...");
applyMigrations({ quiet: true });

let [project] = executeSql("SELECT id, name, api_token FROM projects ORDER BY id LIMIT 1");
if (!project) {
  const token = `phc_${base62(43)}`;
  executeSql(`INSERT INTO projects (name, api_token) VALUES ('Default project', '${token}')`);
  [project] = executeSql("SELECT id, name, api_token FROM projects ORDER BY id LIMIT 1");
  console.log("Created the default project.");
}

const url = `http://127.0.0.1:${PORT}`;
console.log(`
edgehog is starting at ${url}
  project id     ${project.id} (${project.name})
  project token  ${project.api_token}   (SDKs: posthog-node's api key)
  root API key   ${rootKey}   (Authorization: Bearer ...; creates projects and personal API keys)
  API reference  ${url}/api/docs
`);

const worker = await startWorker({ port: PORT, stdio: "inherit", timeoutMs: 10 * 60_000 });
console.log(`Ready: ${worker.url}`);
const stop = async () => {
  await worker.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
worker.process.on("exit", (code) => process.exit(code ?? 0));
