// A stand-in for the wrangler CLI that keeps a pretend Cloudflare account in a JSON file
// ($FAKE_CLOUDFLARE), so the setup script's decisions can be checked without an account.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const statePath = process.env.FAKE_CLOUDFLARE;
const state = JSON.parse(readFileSync(statePath, "utf8"));
const args = process.argv.slice(2);
// The positional words: options and the values of those that take one left out.
const command = args
  .filter((a, i) => !a.startsWith("--") && !["--secrets-file", "--format", "--command"].includes(args[i - 1]))
  .join(" ");
state.calls.push(args.join(" "));
const save = () => writeFileSync(statePath, JSON.stringify(state, null, 2));
const fail = (message) => {
  save();
  console.error(message);
  process.exit(1);
};

if (command === "whoami") {
  if (!state.loggedIn) fail("You are not authenticated.");
} else if (command === "d1 list") {
  console.log(JSON.stringify(state.d1));
} else if (command.startsWith("d1 create ")) {
  state.d1.push({ uuid: `d1-${state.d1.length + 1}`, name: args[2] });
  console.log("Created your new D1 database.");
} else if (command === "kv namespace list") {
  console.log(JSON.stringify(state.kv));
} else if (command.startsWith("kv namespace create ")) {
  state.kv.push({ id: `kv-${state.kv.length + 1}`, title: args[3] });
} else if (command.startsWith("queues info ")) {
  if (!(state.queues ?? []).includes(args[2])) fail(`Queue "${args[2]}" does not exist.`);
} else if (command.startsWith("queues create ")) {
  if ((state.queues ?? []).includes(args[2])) fail("A queue with this name already exists.");
  (state.queues ??= []).push(args[2]);
} else if (command === "d1 migrations apply DB") {
  // As the real one: a remote operation needs the database id in the config.
  if (!/database_id = "/.test(readFileSync(join(process.cwd(), "wrangler.toml"), "utf8")))
    fail("missing a database_id");
  state.migrated = true;
} else if (command === "d1 execute DB") {
  // The deployment's identity, which the first remote `migrations apply` created.
  if (!state.migrated) fail("no such table: deployment: SQLITE_ERROR");
  console.log(JSON.stringify([{ results: [{ id: "fake-deployment-identity" }], success: true }]));
} else if (command === "secret list") {
  if (!state.deployed) fail("This Worker does not exist on your account.");
  console.log(JSON.stringify(Object.keys(state.secrets).map((name) => ({ name, type: "secret_text" }))));
} else if (command === "deploy") {
  // As the real one: every queue the config binds must exist.
  const config = readFileSync(join(process.cwd(), "wrangler.toml"), "utf8");
  for (const [, queue] of config.matchAll(/^(?:queue|dead_letter_queue) = "([^"]+)"/gm)) {
    if (!(state.queues ?? []).includes(queue)) fail(`Queue "${queue}" does not exist.`);
  }
  const file = args[args.indexOf("--secrets-file") + 1];
  if (args.includes("--secrets-file")) {
    if (!existsSync(file)) fail(`no secrets file ${file}`);
    Object.assign(state.secrets, JSON.parse(readFileSync(file, "utf8")));
    state.secretsFile = file;
  }
  state.deployed = true;
} else {
  fail(`fake wrangler: unexpected command ${args.join(" ")}`);
}
save();
