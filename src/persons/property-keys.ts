import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import type { PropertyKeySeen } from "../analytics/queries";
import { PROPERTY_KIND_OF_JSON_EACH } from "../lib/sql";

/**
 * The property keys of a project's latest `sample` persons, with each value type's count: the person
 * property definitions (persons live in D1 on every engine).
 */
export function personPropertyKeys(db: Db, projectId: number, sample: number): Promise<PropertyKeySeen[]> {
  return db.all<PropertyKeySeen>(sql`
    SELECT j.key AS key,
      ${sql.raw(PROPERTY_KIND_OF_JSON_EACH)} AS kind,
      count(*) AS events
    FROM (SELECT properties FROM persons WHERE project_id = ${projectId} ORDER BY id DESC LIMIT ${sample}) p,
      json_each(p.properties) j
    GROUP BY 1, 2`);
}
