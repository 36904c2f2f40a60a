import { env } from "cloudflare:workers";

// Each test file has its own D1, whose project ids start at 1, but the ClickHouse database is shared by the
// whole run and keyed by project (team_id): start this file's ids at a random offset so files never share one.
const offset = 1_000_000 + Math.floor(Math.random() * 1_000_000_000);
await env.DB.prepare("DELETE FROM sqlite_sequence WHERE name = 'projects'").run();
await env.DB.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('projects', ?)").bind(offset).run();

// Every file's D1 is a copy of one deployment: the one the run's ClickHouse database is bound to (global-setup.ts).
await env.DB.prepare("UPDATE deployment SET id = ?").bind(env.TEST_DEPLOYMENT_ID).run();
