import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { analyticsStore } from "../../src/analytics";
import { createDb, type Db } from "../../src/db/client";
import type { Env } from "../../src/env";
import { getPerson, getPersonsByIds, listPersons, type PersonListQuery } from "../../src/persons/service";
import { createProject } from "../helpers";
import { plansOf as explain, recordingD1 } from "../sql-plans";
import { seedPerson } from "../persons-analysis/fixtures";

/** This (D1) deployment's analytics store over `db`: it keeps no persons mirror, so the list reads D1. */
const d1Store = (db: Db) => analyticsStore(env as unknown as Env, db);

/**
 * The persons list's exact lookups (distinct id, email), its search and a person's page (id, uuid)
 * reach their persons through an index, whatever the number of persons: SQLite's plans for the statements they
 * prepare (the real D1 binding, recorded) never walk the project's persons.
 */
let projectId: number;
let uuid: string;

beforeAll(async () => {
  projectId = (await createProject()).id;
  uuid = (await seedPerson(projectId, { distinctId: "plan-1", properties: { email: "a@example.com" } })).uuid;
  await seedPerson(projectId, { distinctId: "plan-2", properties: { email: "b@example.com" } });
});

/** The plans of the statements reading `persons` that `run` prepares, and what it answered. */
async function plansOf<T>(
  run: (db: ReturnType<typeof createDb>) => Promise<T>,
): Promise<{ plans: string[]; answer: T }> {
  const recording = recordingD1(/from "persons"/i);
  const answer = await run(createDb(recording.d1));
  const plans = await explain(recording.statements);
  expect(plans.length).toBeGreaterThan(0);
  return { plans, answer };
}

const list = (query: PersonListQuery, limit = 100) =>
  plansOf((db) => listPersons(db, projectId, query, { limit, offset: 0 }, d1Store(db)));

/** Every statement finds its persons by key, and none walks the project's persons in list order. */
const byKey = (plans: string[]) => {
  for (const plan of plans) {
    expect(plan).toMatch(/SEARCH persons USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(plan).not.toMatch(/persons_project_created_idx/);
    expect(plan).not.toMatch(/SCAN persons/);
  }
};

describe("persons lookups use indexes", () => {
  it("distinct_id: the distinct ids' unique index, then the person by key (page and count)", async () => {
    const { plans, answer } = await list({ distinctId: "plan-1" });
    expect(answer.rows.map((r) => r.distinctIds)).toEqual([["plan-1"]]);
    expect(answer.count).toBe(1);
    expect(plans).toHaveLength(2);
    byKey(plans);
    for (const plan of plans) expect(plan).toMatch(/person_distinct_ids_unique \(project_id=\? AND distinct_id=\?\)/);
  });

  it("email: the persons' email index, then the person by key", async () => {
    const { plans, answer } = await list({ email: "b@example.com" });
    expect(answer.rows.map((r) => r.distinctIds)).toEqual([["plan-2"]]);
    byKey(plans);
    for (const plan of plans) expect(plan).toMatch(/persons_project_email_idx \(project_id=\? AND <expr>=\?\)/);
  });

  it("both, with a search on top: still from the lookups", async () => {
    const { plans, answer } = await list({ distinctId: "plan-1", email: "a@example.com", search: "plan" });
    expect(answer.count).toBe(1);
    byKey(plans);
  });

  it("search: candidates from the trigram index (three characters or more), then each by key", async () => {
    const { plans, answer } = await list({ search: "PLAN-2" });
    expect(answer.rows.map((r) => r.distinctIds)).toEqual([["plan-2"]]);
    byKey(plans);
    for (const plan of plans) expect(plan).toMatch(/SCAN person_search VIRTUAL TABLE INDEX/);
  });

  it("search: a term most persons hold, or one too short for trigrams, walks the list order", async () => {
    // Both persons hold "plan": reading them by key and sorting costs more than a page of one in list order.
    const common = await list({ search: "plan" }, 1);
    expect(common.answer.count).toBe(2);
    const short = await list({ search: "pl" }, 1);
    expect(short.answer.count).toBe(2);
    for (const { plans } of [common, short]) {
      expect(plans[0]).toMatch(/persons_project_created_idx \(project_id=\?\)/);
      expect(plans[0]).not.toMatch(/TEMP B-TREE/);
    }
  });

  it("a person's page by id or uuid", async () => {
    const byUuid = await plansOf((db) => getPerson(db, projectId, uuid));
    expect(byUuid.answer?.uuid).toBe(uuid);
    expect(byUuid.plans.join("\n")).toMatch(/persons_uuid_unique \(project_id=\? AND uuid=\?\)|INTEGER PRIMARY KEY/);
    const byId = await plansOf((db) => getPerson(db, projectId, String(byUuid.answer!.id)));
    expect(byId.answer?.uuid).toBe(uuid);
    expect(byId.plans.join("\n")).toMatch(/SEARCH persons USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    for (const plan of [...byUuid.plans, ...byId.plans])
      expect(plan).not.toMatch(/SCAN persons|persons_project_created_idx/);
  });

  it("persons by ids (drill-downs, cohort members, a write's re-read, a mirror's page): each by key", async () => {
    const { answer: found } = await plansOf((db) => getPerson(db, projectId, uuid));
    const { plans, answer } = await plansOf((db) => getPersonsByIds(db, projectId, [found!.id]));
    expect(answer.map((p) => p.uuid)).toEqual([uuid]);
    byKey(plans);
    // Not every person of the project through a project_id index, checked against the ids.
    for (const plan of plans) expect(plan).not.toMatch(/\(project_id=\?\)/);
  });
});

describe("persons property filters use their index", () => {
  let project: number;
  const filter = (plan: string) => ({
    type: "AND" as const,
    values: [{ kind: "person" as const, key: "plan", operator: "exact" as const, value: plan, negation: false }],
  });
  const filtered = (plan: string, limit: number) =>
    plansOf((db) => listPersons(db, project, { filter: filter(plan) }, { limit, offset: 0 }, d1Store(db)));

  beforeAll(async () => {
    project = (await createProject()).id;
    await seedPerson(project, { properties: { plan: "rare" } });
    for (let i = 0; i < 4; i++) await seedPerson(project, { properties: { plan: "common" } });
  });

  it("a value few persons hold: its persons from the index, by key, counted by the index alone", async () => {
    const { plans, answer } = await filtered("rare", 100);
    expect(answer.rows.map((r) => r.properties)).toEqual([{ plan: "rare" }]);
    expect(answer.count).toBe(1);
    expect(plans).toHaveLength(1); // the page; the count came with the index's statistics
    byKey(plans);
    expect(plans[0]).toMatch(/person_property_values USING PRIMARY KEY \(project_id=\? AND key=\? AND value=\?\)/);
  });

  it("a value only the oldest persons hold: the walk stops at its budget, then the candidates are read", async () => {
    const oldest = (await createProject()).id;
    const at = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, "0")}:00.000Z`;
    for (let i = 0; i < 4; i++) await seedPerson(oldest, { properties: { plan: "legacy", i }, createdAt: at(i) });
    for (let i = 4; i < 12; i++) await seedPerson(oldest, { properties: { plan: "other" }, createdAt: at(i) });
    // 4 candidates of 12 persons: a walk looks cheaper (4² > 1 × 12), but its budget (8) holds none of them.
    const { plans, answer } = await plansOf((db) =>
      listPersons(db, oldest, { filter: filter("legacy") }, { limit: 1, offset: 0 }, d1Store(db)),
    );
    expect(answer.rows.map((r) => r.properties)).toEqual([{ plan: "legacy", i: 3 }]);
    expect(answer.count).toBe(4);
    expect(answer.more).toBe(true);
    expect(plans).toHaveLength(2);
    expect(plans[0]).toMatch(/persons_project_created_idx \(project_id=\?\)/);
    expect(plans[1]).toMatch(/person_property_values USING PRIMARY KEY/);
  });

  it("a value most persons hold: the list order walked until the page is full, the count from the index", async () => {
    const { plans, answer } = await filtered("common", 1);
    expect(answer.rows).toHaveLength(1);
    expect(answer.count).toBe(4);
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatch(/persons_project_created_idx \(project_id=\?\)/);
    expect(plans[0]).not.toMatch(/TEMP B-TREE/);
  });
});
