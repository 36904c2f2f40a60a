import type { Db } from "../db/client";
import { detachFromDeletedPerson } from "./event-rewrites";

/**
 * reset_person_distinct_id: frees a distinct id for reuse after its person was deleted. Deleting a
 * person already removes its ids here, so what remains is to detach the id's past events from the
 * deleted person: they follow the id's current person (or none).
 */
export async function resetDistinctId(db: Db, projectId: number, distinctId: string) {
  await detachFromDeletedPerson(db, projectId, distinctId);
}
