import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { handleError } from "../../src/lib/errors";
import { call, createProject, envelope } from "../helpers";

describe("HTTP core", () => {
  it("answers an unknown route with 404 in the envelope and a request id", async () => {
    const res = await call("/api/nothing-here/");
    expect(res.status).toBe(404);
    expect(envelope(res)).toEqual({ type: "invalid_request", code: "not_found", detail: "Not found.", attr: null });
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("answers a known path with the wrong method with 405", async () => {
    const res = await call("/api/projects/", { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(envelope(res)).toMatchObject({ code: "method_not_allowed", detail: 'Method "DELETE" not allowed.' });
  });

  it("serves every path with or without a trailing slash", async () => {
    expect((await call("/api/projects")).status).toBe(200);
    expect((await call("/api/projects/")).status).toBe(200);
  });

  it("answers malformed JSON with a parse error", async () => {
    const res = await call("/api/projects/", {
      method: "POST",
      rawBody: '{"name": ',
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(envelope(res)).toMatchObject({ type: "invalid_request", code: "parse_error" });
  });

  it("names the field of a validation error in attr", async () => {
    const missing = await call("/api/projects/", { method: "POST", body: {} });
    expect(missing.status).toBe(400);
    expect(envelope(missing)).toEqual({
      type: "validation_error",
      code: "required",
      detail: "This field is required.",
      attr: "name",
    });

    const wrongType = await call("/api/projects/", { method: "POST", body: { name: 42 } });
    expect(wrongType.status).toBe(400);
    expect(envelope(wrongType)).toMatchObject({ type: "validation_error", code: "invalid_input", attr: "name" });

    const badZone = await call("/api/projects/", { method: "POST", body: { name: "x", timezone: "Mars/Olympus" } });
    expect(envelope(badZone)).toMatchObject({ attr: "timezone", detail: "Unknown time zone." });
  });

  it("refuses a body that is not JSON with 415", async () => {
    const res = await call("/api/projects/", {
      method: "POST",
      rawBody: "name=x",
      headers: { "content-type": "text/plain" },
    });
    expect(res.status).toBe(415);
    expect(envelope(res)).toMatchObject({ code: "unsupported_media_type" });
  });

  it("refuses an oversized body with 413 and writes nothing", async () => {
    const before = (await call("/api/projects/?limit=1")).json.count;
    const res = await call("/api/projects/", { method: "POST", body: { name: "x".repeat(2 * 1024 * 1024) } });
    expect(res.status).toBe(413);
    expect(envelope(res)).toMatchObject({ type: "invalid_request", code: "payload_too_large" });
    expect((await call("/api/projects/?limit=1")).json.count).toBe(before);
  });

  it("never leaks a stack trace", async () => {
    for (const res of [
      await call("/api/projects/abc/"),
      await call("/api/projects/", { method: "POST", rawBody: "{", headers: { "content-type": "application/json" } }),
    ]) {
      expect(res.text).not.toMatch(/at .*\.(ts|js):\d+/);
      envelope(res);
    }
  });

  it("answers an unexpected failure with a generic 500 that carries no internal text", async () => {
    const app = new Hono();
    app.onError(handleError);
    app.get("/boom", () => {
      throw new Error("secret: D1_ERROR near line 3 of users.sql");
    });
    const res = await app.request("/boom");
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body).toEqual({ type: "server_error", code: "error", detail: "A server error occurred.", attr: null });
  });

  it("resolves /api/environments/:id and /api/projects/:id to the same project", async () => {
    const project = await createProject();
    const viaProjects = await call(`/api/projects/${project.id}/`);
    const viaEnvironments = await call(`/api/environments/${project.id}`);
    expect(viaProjects.status).toBe(200);
    expect(viaEnvironments.json).toEqual(viaProjects.json);
  });

  it("answers an unknown or malformed project id with 404 Project not found.", async () => {
    for (const id of ["999999", "abc"]) {
      const res = await call(`/api/projects/${id}/`);
      expect(res.status).toBe(404);
      expect(envelope(res).detail).toBe("Project not found.");
    }
  });

  it("paginates with absolute next/previous links", async () => {
    for (let i = 0; i < 3; i++) await createProject(`page ${i}`);
    const first = await call("/api/projects/?limit=2");
    expect(first.json.results).toHaveLength(2);
    expect(first.json.previous).toBeNull();
    expect(first.json.next).toMatch(/^http:\/\/edgehog\.test\/api\/projects\/\?limit=2&offset=2$/);
    const seen = new Set<number>();
    let url: string | null = "/api/projects/?limit=2";
    while (url) {
      const page = await call(url.replace("http://edgehog.test", ""));
      for (const p of page.json.results) seen.add(p.id);
      url = page.json.next;
      if (url) expect((await call(url.replace("http://edgehog.test", ""))).json.previous).toContain("offset=");
    }
    expect(seen.size).toBe(first.json.count);
  });
});
