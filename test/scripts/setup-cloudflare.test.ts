import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const SCRIPT = join(ROOT, "scripts", "setup-cloudflare.mjs");
const FAKE = join(import.meta.dirname, "fake-wrangler.mjs");

interface Account {
  loggedIn: boolean;
  d1: { uuid: string; name: string }[];
  kv: { id: string; title: string }[];
  queues?: string[];
  secrets: Record<string, string>;
  deployed?: boolean;
  migrated?: boolean;
  secretsFile?: string;
  calls: string[];
}

/** A copy of the project's wrangler.toml in a fresh directory, and a pretend account. */
function workspace(account: Partial<Account> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "edgehog-setup-"));
  copyFileSync(join(ROOT, "wrangler.toml"), join(dir, "wrangler.toml"));
  const statePath = join(dir, "account.json");
  const state: Account = { loggedIn: true, d1: [], kv: [], secrets: {}, calls: [], ...account };
  writeFileSync(statePath, JSON.stringify(state));
  const run = (args: string[] = [], env: Record<string, string> = {}) => {
    const result = spawnSync(process.execPath, [SCRIPT, ...args], {
      cwd: dir,
      encoding: "utf8",
      env: {
        ...process.env,
        CLICKHOUSE_URL: "",
        ...env,
        WRANGLER_BIN: FAKE,
        FAKE_CLOUDFLARE: statePath,
        CLOUDFLARE_API_TOKEN: "",
      },
    });
    return { status: result.status, output: result.stdout + result.stderr };
  };
  return {
    run,
    account: () => JSON.parse(readFileSync(statePath, "utf8")) as Account,
    config: () => readFileSync(join(dir, "wrangler.toml"), "utf8"),
  };
}

describe("npm run setup:cloudflare", () => {
  it("creates the database and namespace, writes their ids, migrates, and deploys with a fresh root key", () => {
    const ws = workspace();
    const first = ws.run();
    expect(first.status, first.output).toBe(0);

    const account = ws.account();
    expect(account.d1).toEqual([{ uuid: "d1-1", name: "edgehog" }]);
    expect(account.kv).toEqual([{ id: "kv-1", title: "edgehog-flags" }]);
    const config = ws.config();
    expect(config).toMatch(/binding = "DB"\ndatabase_id = "d1-1"\n/);
    expect(config).toMatch(/binding = "FLAGS_KV"\nid = "kv-1"\n/);
    expect(config).toContain("# Wrangler's own build step"); // comments survive
    expect(account.migrated).toBe(true);
    expect(account.deployed).toBe(true);
    // The key went up with the first deployment, is printed once, and its file is gone.
    expect(account.secrets.ROOT_API_KEY).toMatch(/^phx_root_[0-9a-f]{64}$/);
    expect(first.output).toContain(account.secrets.ROOT_API_KEY);
    expect(existsSync(account.secretsFile!)).toBe(false);
    // Migrations run before the code that needs them.
    const order = account.calls.map((c) => c.split(" ").slice(0, 2).join(" "));
    expect(order.indexOf("d1 migrations")).toBeLessThan(order.indexOf("deploy --secrets-file"));
  });

  it("run again, it creates nothing and keeps the root key", () => {
    const ws = workspace();
    expect(ws.run().status).toBe(0);
    const key = ws.account().secrets.ROOT_API_KEY;
    const configBefore = ws.config();

    const again = ws.run();
    expect(again.status, again.output).toBe(0);
    const account = ws.account();
    expect(account.d1).toHaveLength(1);
    expect(account.kv).toHaveLength(1);
    expect(account.secrets.ROOT_API_KEY).toBe(key);
    expect(again.output).not.toContain(key);
    expect(ws.config()).toBe(configBefore);
    expect(account.calls.filter((c) => c.startsWith("deploy"))).toEqual([
      expect.stringContaining("deploy --secrets-file"),
      "deploy",
    ]);
  });

  it("reuses a database and namespace that already exist by name", () => {
    const ws = workspace({
      d1: [{ uuid: "existing-db", name: "edgehog" }],
      kv: [{ id: "existing-kv", title: "edgehog-flags" }],
    });
    expect(ws.run().status).toBe(0);
    expect(ws.config()).toContain('database_id = "existing-db"');
    expect(ws.config()).toContain('id = "existing-kv"');
    expect(ws.account().calls.some((c) => c.includes("create"))).toBe(false);
  });

  it("stops with a clear message when wrangler is not logged in", () => {
    const ws = workspace({ loggedIn: false });
    const result = ws.run();
    expect(result.status).toBe(1);
    expect(result.output).toContain("npx wrangler login");
    expect(ws.account().calls).toEqual(["whoami"]);
  });

  describe("-- --clickhouse", () => {
    it("creates the events queue and its dead-letter queue and binds them before deploying", () => {
      const ws = workspace();
      const result = ws.run(["--clickhouse"]);
      expect(result.status, result.output).toBe(0);
      const account = ws.account();
      expect(account.queues).toEqual(["edgehog-events-dlq", "edgehog-events"]);
      expect(account.deployed).toBe(true);
      const config = ws.config();
      expect(config).toContain(
        '[[queues.producers]]\nbinding = "EVENTS_QUEUE"\nqueue = "edgehog-events"\n\n[[queues.consumers]]\nqueue = "edgehog-events"\n' +
          'max_batch_size = 100\nmax_batch_timeout = 5\nmax_retries = 100\ndead_letter_queue = "edgehog-events-dlq"\n',
      );
      // Without a server to migrate, it says how to do it.
      expect(result.output).toContain("CLICKHOUSE_URL is not set here");
      expect(result.output).toContain("npm run clickhouse:migrate");
    });

    it("run again, it reuses the queues and leaves the config as it is", () => {
      const ws = workspace({ queues: ["edgehog-events"] });
      expect(ws.run(["--clickhouse"]).status).toBe(0);
      const config = ws.config();
      const again = ws.run(["--clickhouse"]);
      expect(again.status, again.output).toBe(0);
      expect(ws.config()).toBe(config);
      expect(ws.account().queues).toEqual(["edgehog-events", "edgehog-events-dlq"]);
      expect(ws.account().calls.filter((c) => c.startsWith("queues create"))).toEqual([
        "queues create edgehog-events-dlq",
      ]);
    });

    it("migrates the ClickHouse that CLICKHOUSE_URL names before deploying, and stops if that fails", () => {
      const ws = workspace();
      // Nothing listens there: the migration fails, so the code that needs the tables is not deployed.
      const result = ws.run(["--clickhouse"], { CLICKHOUSE_URL: "http://127.0.0.1:9" });
      expect(result.status).toBe(1);
      expect(result.output).toContain("ClickHouse at http://127.0.0.1:9");
      // Bound to the deployment's identity, which D1's migrations (applied first) created.
      expect(result.output).toContain("deployment fake-deployment-identity (remote D1)");
      const calls = ws.account().calls;
      expect(calls.findIndex((c) => c.startsWith("d1 migrations apply"))).toBeLessThan(
        calls.findIndex((c) => c.startsWith("d1 execute DB --remote")),
      );
      expect(result.output).toContain("the ClickHouse migrations failed");
      expect(ws.account().deployed).toBeUndefined();
    });

    it("leaves the queues out without the flag: a D1 deployment binds none", () => {
      const ws = workspace();
      expect(ws.run().status).toBe(0);
      expect(ws.config()).not.toContain("queues");
      expect(ws.account().calls.some((c) => c.startsWith("queues"))).toBe(false);
    });
  });
});
