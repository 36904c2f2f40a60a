import { describe, expect, it } from "vitest";
import { call, createProject } from "../helpers";
import { capture, personByDistinctId, personsPath } from "../persons/helpers";

const BOOKMARK = "x-d1-bookmark";

describe("D1 sessions (read replicas) and bookmarks", () => {
  it("a person PATCH returns a bookmark, and a read with it sees the change", async () => {
    const project = await createProject();
    await capture(project.api_token, [{ event: "$pageview", distinct_id: "reader", properties: {} }]);
    const person = await personByDistinctId(project.id, "reader");

    const patch = await call(personsPath(project.id, `${person!.uuid}/`), {
      method: "PATCH",
      body: { properties: { plan: "scale" } },
    });
    expect(patch.status).toBe(200);
    const bookmark = patch.headers.get(BOOKMARK);
    expect(bookmark).toMatch(/\S/);

    const read = await call(personsPath(project.id, `${person!.uuid}/`), { headers: { [BOOKMARK]: bookmark! } });
    expect(read.status).toBe(200);
    expect(read.json.properties.plan).toBe("scale");
    // The read's own session carries on from the bookmark it was given.
    expect(read.headers.get(BOOKMARK)! >= bookmark!).toBe(true);
  });

  it("every response that touched D1 carries the session's bookmark, reads included", async () => {
    const project = await createProject();
    const list = await call(personsPath(project.id));
    expect(list.status).toBe(200);
    expect(list.headers.get(BOOKMARK)).toMatch(/\S/);
    const flags = await call("/flags/?v=2", {
      method: "POST",
      key: null,
      body: { api_key: project.api_token, distinct_id: "someone" },
    });
    expect(flags.status).toBe(200);
    expect(flags.headers.get(BOOKMARK)).toMatch(/\S/);
  });

  it("a header that is not a bookmark is a 400 naming it", async () => {
    const project = await createProject();
    const res = await call(personsPath(project.id), { headers: { [BOOKMARK]: "not a bookmark" } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ type: "validation_error", attr: "X-D1-Bookmark" });
  });
});
