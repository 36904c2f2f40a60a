import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { api } from "./client";

describe("/api/schema/", () => {
  it("is a valid OpenAPI 3.1 document under a real validator", async () => {
    const res = await api("/api/schema/", { key: null });
    expect(res.status).toBe(200);
    expect(res.json.openapi).toBe("3.1.0");
    await expect(SwaggerParser.validate(structuredClone(res.json))).resolves.toBeTruthy();
  });

  it("is served without credentials and lists the management routes", async () => {
    const res = await api("/api/schema", { key: null });
    expect(Object.keys(res.json.paths)).toEqual(
      expect.arrayContaining(["/api/projects", "/api/projects/{project_id}", "/api/personal_api_keys/@current"]),
    );
  });
});
