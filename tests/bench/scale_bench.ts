/**
 * The scale benchmark's measurements on a filled database (see
 * scale_data.ts): one user's context — the session's last 10 messages and the
 * hybrid top-5 — as the app loads it, at the median and p99, for ordinary
 * users picked at random and for the heavy one; and storing a turn.
 */
import { type Caller, type Sql } from "../../shared/ports.ts";
import { SqlConversationStore } from "../../shared/store/sql_conversation_store.ts";
import { type BenchResult, measure } from "./harness.ts";
import { basis, HEAVY, MODEL, queryVector, random, TOPICS, userIds } from "./scale_data.ts";

/** A signed-in user's caller (the app's path: a transaction as `authenticated`, RLS on). */
function signedIn(id: string): Caller {
  return { userId: id, owner: `user:${id}`, claims: { sub: id, role: "authenticated" } };
}

/** Runs the measurements; `label` names the database in the rows. */
export async function scaleBenchmarks(
  sql: Sql,
  { label, iterations = 500 }: { label: string; iterations?: number },
): Promise<BenchResult[]> {
  const ids = await userIds(sql);
  const vectors = basis();
  const pick = random(11);
  const question = (t: number) => {
    const word = `w${t * 30 + Math.floor(pick() * 30)}`;
    return pick() < 0.5
      ? `any news on LIN-${Math.floor(pick() * 50_000)} and ${word}?`
      : `what did I say about ${word} and the ${`g${Math.floor(pick() * 5000)}`}?`;
  };
  const input = (n: number, session: string, caller: Caller) => {
    const t = (n * 3 + 2) % TOPICS;
    return {
      caller,
      sessionId: session,
      text: question(t),
      embedding: queryVector(vectors, t, [0, 1, 2].map(() => Math.floor(pick() * 1000))),
      embeddingModel: MODEL,
    };
  };
  const anyUser = () => Math.floor(pick() * ids.length);
  const sessionStore = new SqlConversationStore(sql);
  const userStore = new SqlConversationStore(sql, { scope: "user" });
  const results: BenchResult[] = [];
  const run = async (name: string, fn: () => Promise<unknown>, runs = iterations) =>
    results.push(await measure(`${label}: ${name}`, fn, { iterations: runs, warmup: 20 }));

  await run("one user's context, session scope, signed in (RLS, one transaction)", () => {
    const n = anyUser();
    return sessionStore.loadContext(input(n, `bench-${n}-2`, signedIn(ids[n])));
  });
  await run("one user's context, all their sessions, signed in", () => {
    const n = anyUser();
    return userStore.loadContext(input(n, `bench-${n}-2`, signedIn(ids[n])));
  });
  await run("one user's context, session scope, the statement alone (no transaction)", () => {
    const n = anyUser();
    return sessionStore.loadContext(
      input(n, `bench-${n}-2`, { userId: null, owner: `user:${ids[n]}` }),
    );
  });
  await run(
    "the heavy user's context, one session",
    () => sessionStore.loadContext(input(7, "bench-heavy-3", signedIn(HEAVY.id))),
    100,
  );
  await run(
    "the heavy user's context, all sessions (index path)",
    () => userStore.loadContext(input(7, "bench-heavy-3", signedIn(HEAVY.id))),
    100,
  );
  await run("store one turn: message with vector, reply, audit row (signed in)", () => {
    const n = anyUser();
    const { embedding, text } = input(n, "", signedIn(ids[n]));
    return sessionStore.saveTurn({
      caller: signedIn(ids[n]),
      sessionId: `bench-${n}-2`,
      userMessage: { content: text, embedding, embeddingModel: MODEL },
      assistantMessage: { content: "noted" },
      events: [{
        source: "loop",
        tool: "finalize_summary",
        input: {},
        success: true,
        durationMs: 1,
      }],
    });
  }, Math.min(iterations, 300));
  return results;
}
