import type { CapturedEvent } from "../capture/normalize";
import type { Db } from "../db/client";
import { logActivity } from "../lib/activity-log";
import type { Principal } from "../lib/auth/principal";
import { notFound, validationError } from "../lib/errors";
import { propertyChanges } from "../lib/activity-log";
import { ingestEvents } from "./ingest";
import type { PersonWithIds } from "./serialize";
import { getPersonsByIds } from "./service";

/**
 * Person writes from the management API are events, as in PostHog: the event is stored and
 * applied through the same ingestion as SDK events, in this request, so the caller sees the result.
 * It is sent as the person's first distinct id (storage order), as PostHog does.
 */
async function capturePersonEvent(db: Db, projectId: number, person: PersonWithIds, event: string, properties: Record<string, unknown>) {
  const distinctId = person.distinctIds[0];
  if (distinctId === undefined) throw validationError("This person has no distinct id to record the change for.");
  const captured: CapturedEvent = {
    uuid: crypto.randomUUID(),
    event,
    distinctId,
    properties: { ...properties, $process_person_profile: true },
    timestamp: new Date().toISOString(),
  };
  await ingestEvents(db, projectId, [captured]);
  const [after] = await getPersonsByIds(db, projectId, [person.id]);
  if (!after) throw notFound();
  return after;
}

/** PATCH and update_property: a `$set` event, plus an "updated" activity entry listing each changed key. */
export async function setPersonProperties(db: Db, projectId: number, person: PersonWithIds, set: Record<string, unknown>, principal: Principal) {
  const after = await capturePersonEvent(db, projectId, person, "$set", { $set: set });
  const changes = propertyChanges("Person", person.properties, after.properties);
  if (changes.length) await logActivity(db, { projectId, scope: "Person", itemId: person.id, activity: "updated", principal, name: person.uuid, changes });
  return after;
}

/** delete_property: a `$delete_person_property` event carrying `$unset: [key]`. */
export async function deletePersonProperty(db: Db, projectId: number, person: PersonWithIds, key: string, principal: Principal) {
  const after = await capturePersonEvent(db, projectId, person, "$delete_person_property", { $unset: [key] });
  const changes = propertyChanges("Person", person.properties, after.properties);
  await logActivity(db, {
    projectId,
    scope: "Person",
    itemId: person.id,
    activity: "delete_property",
    principal,
    name: person.uuid,
    changes: changes.length ? changes : [{ type: "Person", action: "changed", field: `properties.${key}`, before: null, after: null }],
  });
  return after;
}
