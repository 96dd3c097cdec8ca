/**
 * The planner's statistics where no autovacuum keeps them (PGlite): a table is
 * analyzed once it holds at least 8 pages and has doubled since its last
 * analyze, checked at open, every few hundred statements and at close.
 *
 * Statistics taken of an empty table are worse than none: after the fresh
 * database's `analyze`, a session growing past 300 turns cost 3.3 ms more a
 * request, paired, than on the same database never analyzed, and the planner
 * kept them for the life of the process (docs/benchmarks.md#growing-session).
 * Postgres's autovacuum analyzes after 50 rows and a tenth of the table have
 * changed; doubling is coarser, so the check stays rare on a large table, and
 * Postgres scales a table's row estimate by its current size anyway.
 */
import { describeError } from "../errors.ts";
import type { Logger, Sql, SqlTx } from "../ports.ts";

/** How many statements pass between two checks. */
export const STATISTICS_CHECK_EVERY = 256;

/** Tables (outside the system's schemas) of 8 pages or more that have doubled since analyzed. */
const STALE_TABLES = `
select c.oid::regclass::text as name
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
 where c.relkind = 'r'
   and n.nspname not in ('pg_catalog', 'information_schema')
   and n.nspname not like 'pg\\_%'
   and pg_relation_size(c.oid)
       >= (2 * greatest(c.relpages, 0) + 8)::bigint * current_setting('block_size')::bigint`;

/** Analyzes the tables whose statistics are missing or stale; returns their names. */
export async function refreshStaleStatistics(sql: SqlTx): Promise<string[]> {
  const names = (await sql.query<{ name: string }>(STALE_TABLES)).map(({ name }) => name);
  if (names.length > 0) await sql.exec(`analyze ${names.join(", ")}`);
  return names;
}

/** An `Sql` that keeps its statistics fresh. */
export interface StatisticsKeepingSql extends Sql {
  /** Resolves when no refresh is under way. */
  settled(): Promise<void>;
}

/**
 * `sql`, which refreshes stale statistics every `every` statements (in the
 * background, one refresh at a time) and before it closes (kept on disk for
 * the next start).
 */
export function keepStatistics(
  sql: Sql,
  logger: Logger,
  { every = STATISTICS_CHECK_EVERY }: { every?: number } = {},
): StatisticsKeepingSql {
  let statements = 0;
  let refreshing: Promise<void> | undefined;
  const refresh = (): Promise<void> =>
    refreshStaleStatistics(sql).then(
      (names) => {
        if (names.length > 0) logger.debug("refreshed statistics", { tables: names });
      },
      (error) => logger.warn("could not refresh statistics", { error: describeError(error) }),
    );
  const counted = () => {
    if (++statements % every !== 0 || refreshing) return;
    refreshing = refresh().finally(() => refreshing = undefined);
  };
  return {
    query: <T>(text: string, params?: unknown[]) => {
      const rows = sql.query<T>(text, params);
      counted(); // after the statement, which is queued first
      return rows;
    },
    exec: (script) => sql.exec(script),
    transaction: (fn) => {
      const result = sql.transaction(fn);
      counted();
      return result;
    },
    settled: async () => {
      await refreshing;
    },
    close: async () => {
      await refreshing;
      await refresh();
      await sql.close();
    },
  };
}
