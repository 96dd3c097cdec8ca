/** `GET /mcp-loop/health`: readiness of the database, the models and the tool sources. */
import type { Sql } from "../ports.ts";
import { jsonResponse } from "./responses.ts";

/** One dependency's state. */
export interface HealthCheck {
  ok: boolean;
  [key: string]: unknown;
}

/** What the health handler reports on. */
export interface HealthDeps {
  /** Resolves the database once it is ready (it may still be starting). */
  database: () => Promise<Sql>;
  /** Static facts to show (models, planner, tool count, remote servers). */
  describe: () => Record<string, unknown>;
  /** Extra checks by name (e.g. remote MCP servers); they show but do not fail the health check. */
  checks?: () => Promise<Record<string, { ok: boolean }>>;
}

/** Builds the health handler: 200 when everything is ready, else 503 with reasons. */
export function createHealthHandler(deps: HealthDeps): (req: Request) => Promise<Response> {
  return async () => {
    const started = performance.now();
    let database: HealthCheck;
    try {
      const sql = await deps.database();
      await sql.query("select 1");
      database = { ok: true, latencyMs: Math.round((performance.now() - started) * 100) / 100 };
    } catch (error) {
      database = { ok: false, error: (error as Error).message ?? String(error) };
    }
    const checks = { database, ...(await deps.checks?.()) };
    const ok = checks.database.ok;
    return jsonResponse({ ok, ...deps.describe(), checks }, ok ? 200 : 503, {
      "cache-control": "no-store",
    });
  };
}
