/**
 * A long session's planner prompt with compaction: the next request's
 * round-1 prompt in sessions of 20 and 200 stored messages, with and without
 * compaction (the extractive summary, the default budgets), counted with
 * o200k_base as the fake OpenAI API counts, each prompt's random fence tag
 * replaced by one fixed tag (its tokens vary by a few from prompt to prompt).
 */
import { HashingEmbedder } from "../../shared/adapters/hashing/hashing_embedder.ts";
import { type CompactionDeps } from "../../shared/loop/compaction.ts";
import { McpLoopRunner } from "../../shared/loop/runner.ts";
import { extractiveSummary } from "../../shared/loop/session_summarizer.ts";
import { ChatPlanner } from "../../shared/planner/chat_planner.ts";
import type { ChatCompletionRequest } from "../../shared/ports.ts";
import { countTokens, promptTokens } from "../fakes/openai_api_rules.ts";
import { MemoryConversationStore } from "../fakes/memory_conversation_store.ts";
import { MemorySessionSummaryStore } from "../fakes/memory_session_summary_store.ts";
import { registryOf } from "./tokens_setup.ts";

const LINES = [
  "We're planning the team offsite in Porto for the second week of June.",
  "Budget is 12,000 euros for 14 people, travel included.",
  "Maria prefers the hotel near Ribeira; Tom wants somewhere with a meeting room.",
  "Can you compare three hotels with a meeting room for 14 and breakfast included?",
  "The workshop on the roadmap takes the whole Tuesday; Wednesday is the boat trip.",
  "Flights from Berlin should land before noon on Monday.",
  "Two people are vegetarian and one is allergic to nuts.",
  "Let's keep dinner on Tuesday under 60 euros a head.",
  "Jonas will present the Q3 numbers; he needs a projector and HDMI.",
  "Please remind everyone to bring their laptops and chargers.",
];

/** Stores `count` messages, user and assistant in turn. */
function seed(store: MemoryConversationStore, sessionId: string, count: number) {
  for (let i = 0; i < count; i++) {
    const role = i % 2 === 0 ? "user" : "assistant";
    const line = LINES[(i >> 1) % LINES.length];
    store.rows.push({
      id: crypto.randomUUID(),
      sessionId,
      role,
      content: role === "user" ? line : `Noted: ${line.toLowerCase()}`,
      createdAt: new Date(0).toISOString(),
      owner: "anonymous",
      userId: null,
      seq: store.rows.length,
    });
  }
}

/** The round-1 prompt tokens of the next request in a session of `count` messages. */
async function promptAfter(count: number, compact: boolean) {
  const store = new MemoryConversationStore();
  const summaries = new MemorySessionSummaryStore(store);
  seed(store, "s", count);
  const compaction: CompactionDeps = {
    store: summaries,
    summarize: (input) => Promise.resolve(extractiveSummary(input)),
    options: { afterTokens: 2_000, summaryTokens: 400, keepRecent: 10 },
  };
  let sent: ChatCompletionRequest | undefined;
  const runner = new McpLoopRunner({
    registry: registryOf(10),
    planner: new ChatPlanner({
      model: "gpt-4o",
      complete: (request) => {
        sent ??= request;
        return Promise.resolve({ text: "[]" });
      },
    }),
    embedder: new HashingEmbedder(),
    store,
    compaction: compact ? compaction : undefined,
  });
  await runner.run({
    mode: "general",
    sessionId: "s",
    messages: [{ role: "user", content: "Which hotel did we pick, and what is the budget?" }],
  });
  // Each prompt's random fence tag tokenizes to a few tokens more or less: one fixed tag compares like with like.
  const messages = sent!.messages.map((m) => ({
    ...m,
    content: m.content.replace(/untrusted-data-[0-9a-f]{16}/g, "untrusted-data-0123456789abcdef"),
  }));
  const body = { model: "gpt-4o", messages };
  // The summary as the prompt carries it: the context's sessionSummary field, as printed there.
  const field = /\n\s*"sessionSummary": \{[\s\S]*?"coveredMessages": \d+\n\s*\},/
    .exec(messages[1].content)?.[0];
  return {
    prompt: promptTokens("o200k_base", body).length,
    summary: field ? countTokens("o200k_base", field) : 0,
  };
}

/** The table. */
export async function compactionTable(): Promise<string> {
  const rows = [
    "The next request's round-1 planner prompt (messages only) in a long session (recent window 10, compaction.afterTokens 2000, compaction.summaryTokens 400, extractive summary):",
    "",
    "| stored messages | without compaction | with compaction | the summary in it (its context field) |",
    "|---:|---:|---:|---:|",
  ];
  const sizes: Record<number, { plain: number; prompt: number; summary: number }> = {};
  for (const count of [20, 200]) {
    const plain = await promptAfter(count, false);
    const compacted = await promptAfter(count, true);
    sizes[count] = { plain: plain.prompt, ...compacted };
    rows.push(`| ${count} | ${plain.prompt} | ${compacted.prompt} | ${compacted.summary} |`);
  }
  // Compaction adds its summary and nothing else; without it the prompt does not grow with the
  // session (the same recent window and number of matches; which messages match may differ).
  const { plain, prompt, summary } = sizes[200];
  const met = prompt <= plain + summary;
  rows.push(
    "",
    `200 messages: ${prompt} tokens with compaction ≤ ${plain} without + the summary's ${summary}: ${
      met ? "yes" : "no"
    }; without compaction, ${plain} at 200 messages against ${sizes[20].plain} at 20.`,
  );
  return rows.join("\n");
}
