import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import type { PropertyKeySeen } from "../analytics/queries";

/**
 * The property keys of a project's latest `sample` persons, with each value type's count: the person
 * property definitions (persons live in D1 on every engine).
 */
export function personPropertyKeys(db: Db, projectId: number, sample: number): Promise<PropertyKeySeen[]> {
  return db.all<PropertyKeySeen>(sql`
    SELECT j.key AS key,
      CASE j.type WHEN 'integer' THEN 'Numeric' WHEN 'real' THEN 'Numeric' WHEN 'true' THEN 'Boolean' WHEN 'false' THEN 'Boolean'
        WHEN 'text' THEN CASE WHEN j.value GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]*' THEN 'DateTime' ELSE 'String' END END AS kind,
      count(*) AS events
    FROM (SELECT properties FROM persons WHERE project_id = ${projectId} ORDER BY id DESC LIMIT ${sample}) p,
      json_each(p.properties) j
    GROUP BY 1, 2`);
}
