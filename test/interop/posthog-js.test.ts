import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { PostHog } from "posthog-js";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable, launchChromium, serveFiles, watchPage } from "./browser";
import { api, newProject, workerUrl, createFlag as createProjectFlag } from "./client";

/**
 * posthog-js, unmodified (its `dist/array.js` browser bundle, the one the snippet loads), in
 * headless Chromium on a page served from another origin than the worker:
 * - it loads the remote config and its flags without `errorsLoading`, and the remote config
 *   alone keeps it from loading any extension script (no `/static/...` request; surveys are
 *   not disabled in `init`);
 * - after `identify`, `getFeatureFlag` / `getFeatureFlagPayload` agree with what `/flags?v=2`
 *   answers for that distinct id, for a multivariate flag and a rollout flag;
 * - `identify` and `capture` land: the persons API shows one identified person holding the
 *   anonymous and the identified distinct id, with the `$set` properties of both calls;
 * - and nothing the worker is asked fails: no console error (CORS rejections are reported
 *   there), no failed request, no HTTP error.
 */

declare global {
  interface Window {
    posthog: PostHog;
    /** Every call of the onFeatureFlags listener, in order. */
    flagLoads: { distinctId: string; errorsLoading: boolean }[];
  }
}

const USER = "browser-user-1";
const PERSON_PROPERTIES = { plan: "pro" };
const FLAGS = ["checkout-experiment", "half-rollout", "pro-banner"];
const VARIANT_PAYLOADS = { control: '{"color": "blue"}', test: '{"color": "green"}', holdout: '{"color": "gray"}' };

let project: { id: number; api_token: string };
let site: Awaited<ReturnType<typeof serveFiles>>;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let watched: ReturnType<typeof watchPage>;

const createFlag = (body: Record<string, unknown>) => createProjectFlag(project.id, body);

/** What the browser SDK reports for the given flags: value and (parsed) payload. */
const flagsInPage = (keys: string[]) =>
  page.evaluate(
    (keys) =>
      Object.fromEntries(
        keys.map((k) => [
          k,
          { value: window.posthog.getFeatureFlag(k), payload: window.posthog.getFeatureFlagPayload(k) },
        ]),
      ),
    keys,
  );

/** The same, asked of `/flags?v=2` from Node; payloads are JSON text there, as in PostHog. */
async function flagsFromServer(distinctId: string, personProperties: Record<string, unknown>, keys: string[]) {
  const res = await fetch(`${workerUrl()}/flags/?v=2`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token: project.api_token, distinct_id: distinctId, person_properties: personProperties }),
  });
  expect(res.status).toBe(200);
  const { flags } = (await res.json()) as {
    flags: Record<string, { enabled: boolean; variant?: string | null; metadata?: { payload?: string | null } }>;
  };
  return Object.fromEntries(
    keys.map((k) => {
      const flag = flags[k];
      const payload = flag?.enabled ? flag.metadata?.payload : undefined;
      return [
        k,
        {
          value: flag ? (flag.variant ?? flag.enabled) : undefined,
          payload: payload == null ? undefined : JSON.parse(payload),
        },
      ];
    }),
  );
}

const waitForFlagLoads = (count: number) =>
  page.waitForFunction((count) => window.flagLoads.length >= count, count, { timeout: 10_000 });

describe.skipIf(!chromiumAvailable())("posthog-js in headless Chromium, from another origin", () => {
  beforeAll(async () => {
    project = await newProject();
    await createFlag({
      key: "checkout-experiment",
      filters: {
        groups: [
          { properties: [{ key: "plan", type: "person", operator: "exact", value: ["pro"] }], rollout_percentage: 100 },
        ],
        multivariate: {
          variants: [
            { key: "control", rollout_percentage: 34 },
            { key: "test", rollout_percentage: 33 },
            { key: "holdout", rollout_percentage: 33 },
          ],
        },
        payloads: VARIANT_PAYLOADS,
      },
    });
    await createFlag({
      key: "half-rollout",
      filters: { groups: [{ properties: [], rollout_percentage: 50 }], payloads: { true: '{"a": 1}' } },
    });
    await createFlag({
      key: "pro-banner",
      filters: {
        groups: [
          { properties: [{ key: "plan", type: "person", operator: "exact", value: ["pro"] }], rollout_percentage: 100 },
        ],
        payloads: { true: '{"a": 1}' },
      },
    });

    const bundle = readFileSync(createRequire(import.meta.url).resolve("posthog-js/dist/array.js"));
    site = await serveFiles({
      "/": {
        type: "text/html; charset=utf-8",
        body: '<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><script src="/array.js"></script></head><body><h1>shop</h1></body></html>',
      },
      "/array.js": { type: "text/javascript", body: bundle },
    });
    browser = await launchChromium();
    context = await browser.newContext();
    page = await context.newPage();
    watched = watchPage(page, workerUrl());
    await page.goto(site.url);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await site?.close();
  });

  let anonymousId: string;

  it("loads the remote config and the flags without errorsLoading, and no extension script", async () => {
    anonymousId = await page.evaluate(
      ({ token, host }) => {
        window.flagLoads = [];
        window.posthog.init(token, {
          api_host: host,
          // Headless Chromium's user agent counts as a bot: without this, every event is dropped.
          opt_out_useragent_filter: true,
          // The default, stated: a person exists once identify() makes it identified.
          person_profiles: "identified_only",
          // Still batched as by default, only sent sooner than every 3 s.
          request_queue_config: { flush_interval_ms: 250 },
        });
        window.posthog.onFeatureFlags((_flags, _variants, context) => {
          window.flagLoads.push({
            distinctId: window.posthog.get_distinct_id(),
            errorsLoading: context?.errorsLoading ?? false,
          });
        });
        return window.posthog.get_distinct_id();
      },
      { token: project.api_token, host: workerUrl() },
    );
    await waitForFlagLoads(1);
    for (const load of await page.evaluate(() => window.flagLoads))
      expect(load).toEqual({ distinctId: anonymousId, errorsLoading: false });
    // Anonymous, without a plan: only the rollout can be on, and it agrees with the worker.
    expect(await flagsInPage(FLAGS)).toEqual(await flagsFromServer(anonymousId, {}, FLAGS));
    expect(await flagsInPage(["pro-banner"])).toEqual({ "pro-banner": { value: false, payload: undefined } });

    expect(watched.requests).toContain(`GET /array/${project.api_token}/config.js`);
    expect(watched.requests).toContain("POST /flags/");
    expect(watched.requests.filter((r) => r.includes("/static/"))).toEqual([]);
  });

  it("after identify, flag values and payloads agree with /flags?v=2 for the identified user", async () => {
    const loads = await page.evaluate(
      ({ user, properties }) => {
        window.posthog.identify(user, properties);
        return window.flagLoads.length;
      },
      { user: USER, properties: PERSON_PROPERTIES },
    );
    await waitForFlagLoads(loads + 1);
    for (const load of (await page.evaluate(() => window.flagLoads)).slice(loads))
      expect(load).toEqual({ distinctId: USER, errorsLoading: false });

    const inPage = await flagsInPage(FLAGS);
    expect(inPage).toEqual(await flagsFromServer(USER, PERSON_PROPERTIES, FLAGS));
    expect(inPage["pro-banner"]).toEqual({ value: true, payload: { a: 1 } });
    const variant = inPage["checkout-experiment"].value as keyof typeof VARIANT_PAYLOADS;
    expect(Object.keys(VARIANT_PAYLOADS)).toContain(variant);
    expect(inPage["checkout-experiment"].payload).toEqual(JSON.parse(VARIANT_PAYLOADS[variant]));
    expect(typeof inPage["half-rollout"].value).toBe("boolean");
  });

  it("identify and capture land: one identified person with both distinct ids and the $set properties", async () => {
    await page.evaluate(() => window.posthog.capture("checkout started", { step: 1, $set: { cart_size: 3 } }));
    let person: { distinct_ids: string[]; properties: Record<string, unknown>; is_identified: boolean } | undefined;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      const res = await api(`/api/environments/${project.id}/persons/?distinct_id=${USER}`);
      expect(res.status).toBe(200);
      person = res.json.results[0];
      if (person?.distinct_ids.includes(anonymousId) && person.properties.cart_size !== undefined) break;
    }
    expect(person?.distinct_ids.sort()).toEqual([USER, anonymousId].sort());
    expect(person?.is_identified).toBe(true);
    expect(person?.properties).toMatchObject({ plan: "pro", cart_size: 3 });
    const byAnonymousId = await api(
      `/api/environments/${project.id}/persons/?distinct_id=${encodeURIComponent(anonymousId)}`,
    );
    expect(byAnonymousId.json.results.map((p: { distinct_ids: string[] }) => p.distinct_ids.sort())).toEqual([
      [USER, anonymousId].sort(),
    ]);
  });

  it("nothing failed on the way: no CORS or console error, no failed request, no HTTP error from the worker", async () => {
    expect(watched.problems).toEqual([]);
    // Only the config script, /flags and capture (the first $pageview may leave for the default
    // /e/ before the remote config moves capture to /i/v0/e/).
    const expected = new RegExp(`^(GET /array/${project.api_token}/config\\.js|POST /flags/|POST /e/|POST /i/v0/e/)$`);
    expect(watched.requests.filter((r) => !expected.test(r))).toEqual([]);
    // capture's $set reloaded the flags once more: that load had no error either.
    expect((await page.evaluate(() => window.flagLoads)).filter((load) => load.errorsLoading)).toEqual([]);
  });
});
