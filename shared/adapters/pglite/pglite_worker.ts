/**
 * The worker side of {@link PgliteWorkerSql}: hosts PGlite (with pgvector) in
 * its own thread and runs the statements it is sent, so SQL never blocks the
 * thread that serves HTTP. Transactions hold PGlite until the main thread ends
 * them.
 */
/// <reference lib="deno.worker" />
import { PGlite, type Transaction } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLITE_START_PARAMS } from "./pglite_sql.ts";

/** A request from the main thread. */
export type WorkerRequest =
  & { id: number }
  & (
    | { op: "open"; dataDir: string; loadDataDir?: Blob }
    | { op: "query"; text: string; params?: unknown[]; txId?: number }
    | { op: "exec"; script: string; txId?: number }
    | { op: "begin"; txId: number }
    | { op: "end"; txId: number; commit: boolean }
    | { op: "dump" }
    | { op: "close" }
  );

/** The answer to one request. */
export type WorkerResponse =
  | { id: number; ok: true; value?: unknown }
  | { id: number; ok: false; error: { message: string; code?: string } };

type TxRequest = Extract<WorkerRequest, { op: "query" | "exec" | "end" }>;

let db: PGlite | undefined;
const transactions = new Map<number, (request: TxRequest) => void>();

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const request = event.data;
  if (
    (request.op === "query" || request.op === "exec" || request.op === "end") &&
    request.txId !== undefined
  ) {
    const deliver = transactions.get(request.txId);
    if (deliver) return deliver(request);
    return reply(
      request.id,
      () => Promise.reject(new Error(`transaction ${request.txId} is not open`)),
    );
  }
  void handle(request);
};

async function handle(request: WorkerRequest): Promise<void> {
  switch (request.op) {
    case "open":
      return await reply(request.id, async () => {
        db = await PGlite.create({
          dataDir: request.dataDir,
          loadDataDir: request.loadDataDir,
          extensions: { vector },
          startParams: [...PGlite.defaultStartParams, ...PGLITE_START_PARAMS],
        });
      });
    case "query":
      return await reply(
        request.id,
        async () => (await ready().query(request.text, request.params)).rows,
      );
    case "exec":
      return await reply(request.id, async () => {
        await ready().exec(request.script);
      });
    case "begin":
      return begin(request.id, request.txId);
    case "dump":
      return await reply(request.id, () => ready().dumpDataDir("none"));
    case "close":
      return await reply(request.id, async () => {
        await db?.close();
        db = undefined;
      });
  }
}

/** Opens a transaction that runs the statements sent for it until an `end`. */
function begin(id: number, txId: number): void {
  const inbox: TxRequest[] = [];
  let wake: (() => void) | undefined;
  transactions.set(txId, (request) => {
    inbox.push(request);
    wake?.();
  });
  const next = async (): Promise<TxRequest> => {
    while (inbox.length === 0) await new Promise<void>((resolve) => wake = resolve);
    return inbox.shift()!;
  };
  let end: Extract<TxRequest, { op: "end" }> | undefined;
  ready().transaction(async (tx: Transaction) => {
    post({ id, ok: true });
    while (true) {
      const request = await next();
      if (request.op === "end") {
        end = request;
        if (!request.commit) await tx.rollback();
        return; // PGlite commits when the callback returns without a rollback
      }
      await reply(request.id, async () => {
        if (request.op === "query") return (await tx.query(request.text, request.params)).rows;
        await tx.exec(request.script);
      });
    }
  }).then(
    () => end && post({ id: end.id, ok: true }),
    (error) => post({ id: end?.id ?? id, ok: false, error: toWire(error) }),
  ).finally(() => transactions.delete(txId));
}

async function reply(id: number, work: () => Promise<unknown>): Promise<void> {
  try {
    post({ id, ok: true, value: await work() });
  } catch (error) {
    post({ id, ok: false, error: toWire(error) });
  }
}

function ready(): PGlite {
  if (!db) throw new Error("PGlite is not open");
  return db;
}

function post(response: WorkerResponse): void {
  self.postMessage(response);
}

function toWire(error: unknown): { message: string; code?: string } {
  const e = error as { message?: string; code?: string };
  return {
    message: e?.message ?? String(error),
    code: typeof e?.code === "string" ? e.code : undefined,
  };
}
