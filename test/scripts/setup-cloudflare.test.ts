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
  const run = () => {
    const result = spawnSync(process.execPath, [SCRIPT], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, WRANGLER_BIN: FAKE, FAKE_CLOUDFLARE: statePath, CLOUDFLARE_API_TOKEN: "" },
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
});
