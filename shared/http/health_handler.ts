/**
 * `GET /mcp-loop/health`: readiness of the database, the models and the tool
 * sources. It is public, so it says what is down but not why in detail (the
 * detail goes to the log).
 */
import { describeError } from "../errors.ts";
import type { Logger, Sql } from "../ports.ts";
import type { LazySqlState } from "../store/lazy_sql.ts";
import { jsonResponse } from "./responses.ts";

/** One dependency's state. */
export interface HealthCheck {
  ok: boolean;
  [key: string]: unknown;
}

/** What the health handler reports on. */
export interface HealthDeps {
  /** The database, and where it stands without waiting (it may still be opening). */
  database: { ready(): Promise<Sql>; state(): LazySqlState };
  /** Static facts to show (models, planner, tool count, remote servers). */
  describe: () => Record<string, unknown>;
  /** Extra checks by name (e.g. remote MCP servers); they show but do not fail the health check. */
  checks?: () => Promise<Record<string, { ok: boolean }>>;
  logger: Logger;
  /** Longest the database check may take (default 2 s). */
  timeoutMs?: number;
  /**
   * When authentication is required: the details (models, tools, remote
   * servers) are shown only to a caller with a valid credential; anyone else
   * sees whether each dependency is up.
   */
  authenticate?: (req: Request) => Promise<unknown>;
}

const TIMED_OUT = new Error("timed out");

/** Builds the health handler: 200 when everything is ready, else 503 with reasons. */
export function createHealthHandler(deps: HealthDeps): (req: Request) => Promise<Response> {
  return async (req) => {
    const detailed = !deps.authenticate ||
      await deps.authenticate(req).then(() => true, () => false);
    // While the database opens (PGlite's first start takes seconds), say so at once.
    if (deps.database.state() === "opening") {
      return respond(deps, { ok: false, starting: true, error: "the database is still starting" }, {
        detailed,
      });
    }
    const started = performance.now();
    let database: HealthCheck;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(TIMED_OUT), deps.timeoutMs ?? 2_000);
      });
      await Promise.race([deps.database.ready().then((sql) => sql.query("select 1")), timeout]);
      database = { ok: true, latencyMs: Math.round((performance.now() - started) * 100) / 100 };
    } catch (error) {
      deps.logger.warn("health check: the database is not reachable", {
        error: describeError(error),
      });
      database = { ok: false, error: "the database is not reachable; see the server log" };
    } finally {
      clearTimeout(timer);
    }
    return respond(deps, database, { detailed });
  };
}

async function respond(
  deps: HealthDeps,
  database: HealthCheck,
  { detailed }: { detailed: boolean },
): Promise<Response> {
  const extra = await deps.checks?.() ?? {};
  const checks = detailed ? { database, ...extra } : {
    database: { ok: database.ok, ...(database.starting ? { starting: true } : {}) },
    ...Object.fromEntries(Object.entries(extra).map(([name, check]) => [name, { ok: check.ok }])),
  };
  const ok = checks.database.ok;
  const starting = database.starting === true;
  return jsonResponse(
    { ok, ...(starting ? { starting } : {}), ...(detailed ? deps.describe() : {}), checks },
    ok ? 200 : 503,
    {
      "cache-control": "no-store",
    },
  );
}
