import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain ESM script shared with `npm run setup:cloudflare`
import { bindingValues, setBindingValue, withEventQueues, workerName } from "../../scripts/lib/wrangler-config.mjs";

const TOML = `name = "edgehog" # the worker
main = "src/index.ts"

[[d1_databases]]
binding = "DB"
database_name = "edgehog"

[[d1_databases]]
binding = "OTHER"
database_name = "other"
database_id = "old"

[[kv_namespaces]]
binding = "FLAGS_KV"
`;

describe("wrangler.toml ids", () => {
  it("reads a binding's values and the worker's name", () => {
    expect(workerName(TOML)).toBe("edgehog");
    expect(bindingValues(TOML, "d1_databases", ["binding", "OTHER"])).toEqual({
      binding: "OTHER",
      database_name: "other",
      database_id: "old",
    });
    expect(bindingValues(TOML, "d1_databases", ["binding", "MISSING"])).toBeUndefined();
  });

  it("adds a missing id after the binding line and replaces an existing one, touching nothing else", () => {
    const added = setBindingValue(TOML, "d1_databases", ["binding", "DB"], "database_id", "new-id");
    expect(added).toBe(TOML.replace('binding = "DB"\n', 'binding = "DB"\ndatabase_id = "new-id"\n'));
    const replaced = setBindingValue(TOML, "d1_databases", ["binding", "OTHER"], "database_id", "fresh");
    expect(replaced).toBe(TOML.replace('database_id = "old"', 'database_id = "fresh"'));
    const kv = setBindingValue(TOML, "kv_namespaces", ["binding", "FLAGS_KV"], "id", "abc");
    expect(bindingValues(kv, "kv_namespaces", ["binding", "FLAGS_KV"])).toEqual({ binding: "FLAGS_KV", id: "abc" });
  });

  it("refuses to invent a binding", () => {
    expect(() => setBindingValue(TOML, "kv_namespaces", ["binding", "NOPE"], "id", "x")).toThrow(
      "no [[kv_namespaces]]",
    );
  });

  it("appends the events queue's sections once, named after the worker", () => {
    const once = withEventQueues(TOML.replace('name = "edgehog"', 'name = "shop"'));
    expect(once.startsWith(TOML.replace('name = "edgehog"', 'name = "shop"'))).toBe(true);
    expect(bindingValues(once, "queues.producers", ["binding", "EVENTS_QUEUE"])).toEqual({
      binding: "EVENTS_QUEUE",
      queue: "shop-events",
    });
    expect(bindingValues(once, "queues.consumers", ["queue", "shop-events"])).toEqual({
      queue: "shop-events",
      dead_letter_queue: "shop-events-dlq",
    });
    expect(withEventQueues(once)).toBe(once);
  });
});
