import type { CapturedEvent } from "./ingest/event";
import type { Env } from "../env";
import type { Db } from "../db/client";
import { activityEntry, propertyChanges, type ActivityInput } from "../lib/activity-log";
import type { Principal } from "../lib/auth/principal";
import { notFound, validationError } from "../lib/errors";
import { eventSink, ingestEvents } from "./ingest";
import type { PersonWithIds } from "./serialize";
import { getPersonsByIds } from "./service";

type Props = Record<string, unknown>;

/**
 * Person writes from the management API are events, as in PostHog: the event is stored and
 * applied through the same ingestion as SDK events, in this request, so the caller sees the result.
 * It is sent as the person's first distinct id (storage order), as PostHog does. The activity entry
 * joins the ingest's batch (all or nothing) and its before/after come from the state the write
 * actually applied to, not from the route's earlier read.
 */
async function capturePersonEvent(
  env: Env,
  db: Db,
  projectId: number,
  person: PersonWithIds,
  event: string,
  properties: Props,
  activity: (before: Props, after: Props) => ActivityInput | null,
) {
  const distinctId = person.distinctIds[0];
  if (distinctId === undefined) throw validationError("This person has no distinct id to record the change for.");
  const captured: CapturedEvent = {
    uuid: crypto.randomUUID(),
    event,
    distinctId,
    properties: { ...properties, $process_person_profile: true },
    timestamp: new Date().toISOString(),
  };
  // The event goes wherever capture's go (into ClickHouse's queue when it is configured).
  await ingestEvents(db, eventSink(env), projectId, [captured], {
    alongside: (view) => {
      const before = view.before(distinctId);
      const after = view.after(distinctId);
      // The id left this person (deleted or merged away) since the route read it: nothing to change.
      if (!before || !after || before.id !== person.id) throw notFound();
      const entry = activity(before.properties, after.properties);
      return entry ? [activityEntry(db, entry)] : [];
    },
  });
  const [after] = await getPersonsByIds(db, projectId, [person.id]);
  if (!after) throw notFound();
  return after;
}

/** PATCH and update_property: a `$set` event, plus an "updated" activity entry listing each changed key. */
export async function setPersonProperties(
  env: Env,
  db: Db,
  projectId: number,
  person: PersonWithIds,
  set: Props,
  principal: Principal,
) {
  return capturePersonEvent(env, db, projectId, person, "$set", { $set: set }, (before, after) => {
    const changes = propertyChanges("Person", before, after);
    return changes.length
      ? { projectId, scope: "Person", itemId: person.id, activity: "updated", principal, name: person.uuid, changes }
      : null;
  });
}

/** delete_property: a `$delete_person_property` event carrying `$unset: [key]`. */
export async function deletePersonProperty(
  env: Env,
  db: Db,
  projectId: number,
  person: PersonWithIds,
  key: string,
  principal: Principal,
) {
  return capturePersonEvent(
    env,
    db,
    projectId,
    person,
    "$delete_person_property",
    { $unset: [key] },
    (before, after) => {
      const changes = propertyChanges("Person", before, after);
      return {
        projectId,
        scope: "Person",
        itemId: person.id,
        activity: "delete_property",
        principal,
        name: person.uuid,
        changes: changes.length
          ? changes
          : [{ type: "Person", action: "changed", field: `properties.${key}`, before: null, after: null }],
      };
    },
  );
}
