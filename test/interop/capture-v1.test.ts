import { describe, it } from "vitest";
import { captureV1DropScenario, captureV1Scenario } from "./capture-v1-scenario";

describe("posthog-node in Capture V1 mode (D1)", () => {
  it("captures, identifies, aliases and sets person properties through /i/v1/analytics/events", async () => {
    await captureV1Scenario();
  });

  it("reports a dropped event under the uuid it sent, and stores the others", async () => {
    await captureV1DropScenario();
  });
});
