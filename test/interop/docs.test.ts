import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain ESM script shared with `npm run check:docs`
import { hasChromium, renderedOperations, schemaOperations } from "../../scripts/lib/docs-in-chromium.mjs";
import { api, workerUrl } from "./client";

// .ci/run installs Debian's chromium; on a machine without it this check is reported as skipped.
describe.skipIf(!hasChromium())("/api/docs in headless Chromium", () => {
  it("renders offline and lists every operation of the schema", async () => {
    const expected: string[] = schemaOperations((await api("/api/schema/", { key: null })).json);
    const rendered: string[] = renderedOperations(`${workerUrl()}/api/docs`);
    expect(rendered.length).toBeGreaterThan(0);
    expect(expected.filter((op) => !rendered.includes(op))).toEqual([]);
  });
});
