import { describe, expect, it } from "vitest";
import { call, createProject, envelope } from "../helpers";

describe("repeated query parameters on /flags and /decide", () => {
  it("answer 400 naming the parameter (declared parameters take one value)", async () => {
    const project = await createProject();
    for (const path of [
      `/flags/?v=2&token=${project.api_token}&token=x`,
      `/decide/?v=3&v=4&token=${project.api_token}`,
    ]) {
      const res = await call(path, { method: "POST", key: null, body: { distinct_id: "d" } });
      expect(res.status).toBe(400);
      envelope(res);
      expect(res.json.attr).toBe(path.includes("token=x") ? "token" : "v");
    }
  });
});
