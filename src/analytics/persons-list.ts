import type { FilterGroup } from "../shared/filters";
import type { RowWindow } from "./queries";

/**
 * A persons list asked of an engine that keeps a mirror of the persons (ClickHouse): the project's
 * persons matching a search (trimmed, not empty) and a filter (already parsed: the persons list
 * refused a bad one before asking), newest first, then highest id, as on D1.
 */
export interface PersonsListQuestion {
  projectId: number;
  search?: string;
  filter?: FilterGroup;
  rows: RowWindow;
}

/** A page of a persons list: D1 ids in list order, whether more follow, and how many match. */
export interface PersonsListAnswer {
  ids: number[];
  more: boolean;
  count: number;
}
