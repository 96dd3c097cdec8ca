/**
 * A PGlite served over the Postgres wire protocol on a loopback port
 * (`@electric-sql/pglite-socket`), so code that takes a database URL — the
 * Postgres adapter, the deployed function in another process — can run on
 * PGlite with pgvector. PGlite has one session: the server multiplexes
 * connections onto it (a transaction keeps it until it ends), so session
 * settings are shared between connections.
 */
import type { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

/** A served PGlite: its database URL, and how to stop serving it. */
export interface ServedPglite {
  url: string;
  /** How many connections clients have opened so far. */
  connections(): number;
  close(): Promise<void>;
}

/** Serves `db` on 127.0.0.1 (a free port) for up to `maxConnections` clients at once. */
export async function servePglite(
  db: PGlite,
  { maxConnections = 8 }: { maxConnections?: number } = {},
): Promise<ServedPglite> {
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections });
  let connections = 0;
  server.addEventListener("connection", () => connections++);
  await server.start();
  return {
    url: `postgresql://postgres:postgres@${server.getServerConn()}/postgres`,
    connections: () => connections,
    close: () => server.stop(),
  };
}
