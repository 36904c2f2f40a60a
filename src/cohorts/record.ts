import type { z } from "@hono/zod-openapi";
import type { CohortRow } from "../shared/cohorts/reads";
import type { CohortSchema } from "./schema";

/**
 * `count` is null where members are not counted (lists): see docs/compatibility.md;
 * `errorsCalculating` is 1 where the stored cohort could not be evaluated.
 */
export function cohortRecord(
  row: CohortRow,
  count: number | null,
  errorsCalculating = 0,
): z.infer<typeof CohortSchema> {
  let createdBy: unknown;
  try {
    createdBy = row.createdBy ? JSON.parse(row.createdBy) : null;
  } catch {
    createdBy = row.createdBy;
  }
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    filters: row.filters,
    groups: Array.isArray(row.filters.groups) ? row.filters.groups : [],
    is_static: row.isStatic,
    is_calculating: false,
    errors_calculating: errorsCalculating,
    count,
    created_by: createdBy,
    created_at: row.createdAt,
    last_calculation: row.updatedAt ?? row.createdAt,
    deleted: row.deleted,
    version: row.version,
  };
}
