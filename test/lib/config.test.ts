import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import operations from "../../docs/operations.md?raw";
import devVarsExample from "../../.dev.vars.example?raw";
import { createApp } from "../../src/app";
import { CORS_ALLOWED_ORIGINS, ROOT_API_KEY, SETTINGS, SettingError } from "../../src/lib/config";

const app = createApp();
const withEnv = (overrides: Record<string, string | undefined>) => ({ ...env, ...overrides });

describe("settings", () => {
  it("refuses a missing, placeholder or short root key, naming the problem", () => {
    expect(() => ROOT_API_KEY.parse(undefined)).toThrow(new SettingError("is not set"));
    expect(() => ROOT_API_KEY.parse(" ")).toThrow("is not set");
    expect(() => ROOT_API_KEY.parse("change-me")).toThrow("placeholder");
    expect(() => ROOT_API_KEY.parse("phx_short")).toThrow("at least 32 characters");
    expect(ROOT_API_KEY.parse(" phx_root_0123456789abcdef0123456789abcdef ")).toBe(
      "phx_root_0123456789abcdef0123456789abcdef",
    );
  });

  it("reads CORS origins as a set, * as any, and refuses what is not an origin", () => {
    expect(CORS_ALLOWED_ORIGINS.parse(undefined)).toEqual(new Set());
    expect(CORS_ALLOWED_ORIGINS.parse(" https://a.example/ , http://localhost:3000")).toEqual(
      new Set(["https://a.example", "http://localhost:3000"]),
    );
    expect(CORS_ALLOWED_ORIGINS.parse("https://a.example,*")).toBe("*");
    expect(() => CORS_ALLOWED_ORIGINS.parse("https://a.example/admin")).toThrow('"https://a.example/admin"');
    expect(() => CORS_ALLOWED_ORIGINS.parse("admin.example")).toThrow("not an origin");
  });

  it("answers a 500 naming the variable when a request needs a misconfigured one", async () => {
    const res = await app.fetch(
      new Request("http://edgehog.test/api/projects/", { headers: { authorization: "Bearer phx_anything" } }),
      withEnv({ ROOT_API_KEY: undefined }),
      createExecutionContext(),
    );
    expect(res.status).toBe(500);
    const body = (await res.json()) as { code: string; detail: string };
    expect(body.code).toBe("misconfigured");
    expect(body.detail).toContain("ROOT_API_KEY is not set");
    expect(body.detail).toContain("wrangler secret put ROOT_API_KEY");
  });

  it("leaves requests that do not read a misconfigured setting alone", async () => {
    const res = await app.fetch(
      new Request("http://edgehog.test/_health"),
      withEnv({ ROOT_API_KEY: undefined }),
      createExecutionContext(),
    );
    expect(res.status).toBe(200);
  });

  it("is listed, every one, in docs/operations.md and .dev.vars.example", () => {
    for (const { name } of SETTINGS) {
      expect(operations, name).toContain(`\`${name}\``);
      expect(devVarsExample, name).toMatch(new RegExp(`^#? ?${name}=`, "m"));
    }
  });
});
