import { parseFunnel, parseFunnelStep, parseStepBreakdown, type ProjectContext, stepCondition } from "./funnel-input";
import { funnelCtes } from "./funnel-sql";
import { type Input, int } from "./params";
import { actorsPage, type ActorsResponse, type PageRequest } from "./response";
import { Params, runAll } from "./sql";

export const DEFAULT_ACTORS_LIMIT = 100;
export const MAX_ACTORS_LIMIT = 10_000;

export function pageOf(input: Input, limitParam = "limit", offsetParam = "offset"): PageRequest {
  return {
    limit: int(input, limitParam, { min: 1, max: MAX_ACTORS_LIMIT }) ?? DEFAULT_ACTORS_LIMIT,
    offset: int(input, offsetParam, { min: 0 }) ?? 0,
    limitParam,
    offsetParam,
  };
}

/** Funnel actors: the persons of one funnel bucket (`funnel_step`, `funnel_step_breakdown`), one page. */
export async function funnelActors(d1: D1Database, ctx: ProjectContext, input: Input, requestUrl: string): Promise<ActorsResponse> {
  const spec = await parseFunnel(input, ctx);
  const step = parseFunnelStep(input, spec.steps.length);
  const breakdownValue = parseStepBreakdown(input);
  const page = pageOf(input);
  const params = new Params();
  const ctes = funnelCtes(spec, params);
  const conditions = [stepCondition(step)];
  if (breakdownValue !== undefined && spec.breakdown) conditions.push(`bd = ${params.bind(breakdownValue)}`);
  const sql = `${ctes}
    SELECT pid FROM funnel WHERE ${conditions.join(" AND ")}
    ORDER BY pid LIMIT ${params.bind(page.limit + 1)} OFFSET ${params.bind(page.offset)}`;
  const rows = await runAll<{ pid: number }>(d1, sql, params);
  return actorsPage(d1, ctx.projectId, rows.map((r) => r.pid), page, requestUrl, { funnel: true });
}
