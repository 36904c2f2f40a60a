import type { Db } from "../../db/client";
import { SerializedPersonSchema } from "../schema";
import { serializedPerson } from "../serialize";
import { getPersonsByIds } from "../service";

/**
 * Person ids → list-shaped persons (PostHog's SerializedPerson), through the persons area's own
 * reads and serializer, so the drill-downs answer exactly the persons list shape.
 */
export { SerializedPersonSchema };
export type SerializedPerson = ReturnType<typeof serializedPerson>;

/** Hydrates persons in the given order; ids whose person no longer exists are skipped. */
export async function hydratePersons(db: Db, projectId: number, ids: number[]): Promise<SerializedPerson[]> {
  if (!ids.length) return [];
  const byId = new Map((await getPersonsByIds(db, projectId, ids)).map((p) => [p.id, p]));
  return ids.flatMap((id) => {
    const person = byId.get(id);
    return person ? [serializedPerson(person)] : [];
  });
}
