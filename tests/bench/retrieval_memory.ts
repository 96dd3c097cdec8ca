/**
 * Memory recall on LoCoMo, the way the loop stores and recalls: each
 * conversation is one session, every turn stored as the user's message
 * `Speaker: text` (with `[shares <caption>]` for a shared image) with its
 * embedding, then each question loads the context (`load_chat_context`, no
 * recent window, 10 matches) and is stored after, as a turn is. Evidence
 * recall@k (LoCoMo's `task_eval/evaluation.py`): the evidence turns among
 * the first k matches over the evidence turns, averaged over the questions
 * that have evidence. Beside it, plain BM25 over the same turns.
 */
import { PgliteSql } from "../../shared/adapters/pglite/pglite_sql.ts";
import type { Config } from "../../shared/config/config.ts";
import { ANONYMOUS, type Embedder } from "../../shared/ports.ts";
import { applyMigrations } from "../../shared/store/migrations.ts";
import { SqlConversationStore } from "../../shared/store/sql_conversation_store.ts";
import { PlainBm25 } from "./plain_bm25.ts";
import type { Conversation, RetrievalData, Turn } from "./retrieval_data.ts";

/** The k of the recall figures, and how many matches are loaded. */
export const MEMORY_KS = [5, 10];

/** One question's outcome. */
export interface RecallRow {
  conversation: string;
  category: number;
  /** `<ranking>@<k>` → recall. */
  recall: Map<string, number>;
  /** Evidence found by the vectors only, among the first 10. */
  vectorOnly: number;
}

/** A turn as the user's message. */
export function turnText(turn: Turn): string {
  return `${turn.speaker}: ${turn.text}${turn.caption ? ` [shares ${turn.caption}]` : ""}`;
}

/** Runs every conversation through one in-memory PGlite; a row per question with evidence. */
export async function measureMemory(
  data: RetrievalData,
  { config, embedder }: { config: Config; embedder: Embedder },
): Promise<RecallRow[]> {
  const sql = await PgliteSql.open({ dataDir: "memory://" });
  try {
    await applyMigrations(sql);
    const store = new SqlConversationStore(sql, {
      ...config.memory,
      recentLimit: 0,
      matchCount: Math.max(...MEMORY_KS),
    });
    const rows: RecallRow[] = [];
    for (const conversation of data.conversations) {
      rows.push(...await measureConversation(conversation, { store, embedder }));
    }
    return rows;
  } finally {
    await sql.close();
  }
}

async function measureConversation(
  conversation: Conversation,
  { store, embedder }: { store: SqlConversationStore; embedder: Embedder },
): Promise<RecallRow[]> {
  const sessionId = `locomo-${conversation.id}-${crypto.randomUUID()}`;
  const idsOf = new Map<string, string[]>();
  const texts = conversation.turns.map(turnText);
  conversation.turns.forEach((turn, i) =>
    idsOf.set(texts[i], [...idsOf.get(texts[i]) ?? [], turn.id])
  );
  const vectors = await embedder.embed(texts);
  for (const [i, content] of texts.entries()) {
    await store.saveTurn({
      caller: ANONYMOUS,
      sessionId,
      userMessage: { content, embedding: vectors[i], embeddingModel: embedder.model },
      events: [],
    });
  }
  const bm25 = new PlainBm25(
    conversation.turns.map((turn, i) => ({ id: turn.id, text: texts[i] })),
  );
  const rows: RecallRow[] = [];
  for (const question of conversation.questions) {
    const [embedding] = await embedder.embed([question.text]);
    const { semanticMatches } = await store.loadContext({
      caller: ANONYMOUS,
      sessionId,
      text: question.text,
      embedding,
      embeddingModel: embedder.model,
    });
    await store.saveTurn({
      caller: ANONYMOUS,
      sessionId,
      userMessage: { content: question.text, embedding, embeddingModel: embedder.model },
      events: [],
    });
    if (question.evidence.length === 0) continue;
    const evidence = new Set(question.evidence);
    const found = (ids: string[]) => ids.filter((id) => evidence.has(id)).length / evidence.size;
    const project = semanticMatches.map((m) => idsOf.get(m.content) ?? []);
    const plain = bm25.rank(question.text);
    const recall = new Map<string, number>();
    for (const k of MEMORY_KS) {
      recall.set(`project@${k}`, found([...new Set(project.slice(0, k).flat())]));
      recall.set(`bm25@${k}`, found(plain.slice(0, k)));
    }
    const vectorOnly = semanticMatches.slice(0, 10)
      .filter((m) => m.foundBy.length === 1 && m.foundBy[0] === "vector")
      .flatMap((m) => idsOf.get(m.content) ?? []).filter((id) => evidence.has(id)).length;
    rows.push({ conversation: conversation.id, category: question.category, recall, vectorOnly });
  }
  return rows;
}
