import { env } from "cloudflare:workers";
import { createProject } from "../../helpers";

/**
 * A project whose id no other test uses. The worker tests share one ClickHouse database, while each
 * test has a D1 of its own whose ids start at 1; a row with a random id first moves D1's sequence past it.
 */
export async function clickhouseProject() {
  const floor = 1_000_000 + Math.floor(Math.random() * 2_000_000_000);
  await env.DB.prepare("INSERT INTO projects (id, name, api_token) VALUES (?, 'id floor', ?)")
    .bind(floor, `phc_id_floor_${floor}`)
    .run();
  return createProject();
}
