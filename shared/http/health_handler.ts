/**
 * `GET /mcp-loop/health`: readiness of the database, the models and the tool
 * sources. It is public, so it says what is down but not why in detail (the
 * detail goes to the log).
 */
import { describeError } from "../errors.ts";
import type { Logger, Sql } from "../ports.ts";
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
  logger: Logger;
  /** Longest the database check may take (default 2 s). */
  timeoutMs?: number;
}

const TIMED_OUT = new Error("timed out");

/** Builds the health handler: 200 when everything is ready, else 503 with reasons. */
export function createHealthHandler(deps: HealthDeps): (req: Request) => Promise<Response> {
  // Until the database has answered once, a slow check means "starting", not "down".
  let answeredOnce = false;
  return async () => {
    const started = performance.now();
    let database: HealthCheck;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(TIMED_OUT), deps.timeoutMs ?? 2_000);
      });
      await Promise.race([deps.database().then((sql) => sql.query("select 1")), timeout]);
      answeredOnce = true;
      database = { ok: true, latencyMs: Math.round((performance.now() - started) * 100) / 100 };
    } catch (error) {
      if (!answeredOnce && error === TIMED_OUT) {
        database = { ok: false, starting: true, error: "the database is still starting" };
        return respond(deps, database);
      }
      deps.logger.warn("health check: the database is not reachable", {
        error: describeError(error),
      });
      database = { ok: false, error: "the database is not reachable; see the server log" };
    } finally {
      clearTimeout(timer);
    }
    return respond(deps, database);
  };
}

async function respond(deps: HealthDeps, database: HealthCheck): Promise<Response> {
  const checks = { database, ...(await deps.checks?.()) };
  const ok = checks.database.ok;
  return jsonResponse({ ok, ...deps.describe(), checks }, ok ? 200 : 503, {
    "cache-control": "no-store",
  });
}
