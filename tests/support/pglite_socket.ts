/**
 * A PGlite served over the Postgres wire protocol on a loopback port
 * (`@electric-sql/pglite-socket`), so code that takes a database URL — the
 * Postgres adapter, the deployed function in another process — can run on
 * PGlite with pgvector. PGlite has one session: the server multiplexes
 * connections onto it (a transaction keeps it until it ends), so session
 * settings are shared between connections.
 *
 * The server (0.2.17) keeps the session for one connection only inside a
 * transaction; between two connections' extended-query messages it switches
 * after any message. Postgres gives each connection its own unnamed statement
 * and portal, which live from Parse and Bind to Execute and Sync (Postgres
 * documentation, "Frontend/Backend Protocol", 55.2.3 Extended Query), so a
 * client such as postgres.js pipelines Parse, Bind, Describe, Execute, Sync
 * and expects them to run together. Interleaved, another connection's Bind
 * replaced the portal and the first connection's Execute failed with SQLSTATE
 * 34000 (invalid cursor name) — a failure no real Postgres gives. So the
 * served database reports itself busy with one connection from its first
 * extended-query message until that connection's Sync, as strict as a real
 * server's sessions and no stricter.
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
  const server = new PGLiteSocketServer({
    db: extendedQueriesTogether(db),
    host: "127.0.0.1",
    port: 0,
    maxConnections,
  });
  let connections = 0;
  server.addEventListener("connection", () => connections++);
  await server.start();
  return {
    url: `postgresql://postgres:postgres@${server.getServerConn()}/postgres`,
    connections: () => connections,
    close: () => server.stop(),
  };
}

/** Parse, Bind, Describe, Execute, Close, Flush: an extended query goes on until Sync. */
const EXTENDED = new Set(["P", "B", "D", "E", "C", "H"].map((c) => c.charCodeAt(0)));
const SYNC = "S".charCodeAt(0);

/**
 * `db` as the socket server sees it: "in a transaction" (so it serves the same
 * connection next) from an extended-query message until the Sync that ends it.
 * The server's rollback for a connection that left mid-way ends it too.
 */
function extendedQueriesTogether(db: PGlite): PGlite {
  let midQuery = false;
  return new Proxy(db, {
    get(target, property) {
      if (property === "isInTransaction") return () => midQuery || target.isInTransaction();
      if (property === "execProtocolRawStream") {
        return async (
          message: Uint8Array,
          options: Parameters<PGlite["execProtocolRawStream"]>[1],
        ) => {
          if (EXTENDED.has(message[0])) midQuery = true;
          try {
            return await target.execProtocolRawStream(message, options);
          } finally {
            if (message[0] === SYNC) midQuery = false;
          }
        };
      }
      if (property === "exec") {
        return (query: string, options?: Parameters<PGlite["exec"]>[1]) => {
          midQuery = false;
          return target.exec(query, options);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
