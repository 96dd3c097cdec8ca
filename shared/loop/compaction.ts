/**
 * Compaction: when a session's messages older than the recent window (and
 * not yet summarised) pass a token budget, they are folded into the
 * session's summary (the chat model's, or an extractive one offline), which
 * is stored; the planner then sees the summary plus the recent messages,
 * not the older ones. A summary always ends at a turn's end — the messages it
 * covers stop before a user message — so a tool call is never summarised
 * apart from its result, nor a question apart from its answer; the recent
 * messages a summary covers are not shown twice.
 */
import { BoundedSet } from "../bounded.ts";
import type { Caller, Logger, StoredMessage, TokenCounter, UsageMeter } from "../ports.ts";
import type {
  HistoryMessage,
  SessionSummary,
  SessionSummaryStore,
  SummaryState,
} from "../store/session_summary_store.ts";
import type { SessionSummarizer } from "./session_summarizer.ts";
import { type LoadedContext, loadLoopContext } from "./context_stage.ts";
import { APPROXIMATE_COUNTER } from "./usage.ts";

/** Compaction settings. */
export interface CompactionOptions {
  /** Summarise once the unsummarised older messages pass this many tokens (estimated). */
  afterTokens: number;
  /** About how long a summary may be, in tokens. */
  summaryTokens: number;
  /** The recent window the planner sees as messages (the memory's recent limit). */
  keepRecent: number;
}

/** What compaction needs. */
export interface CompactionDeps {
  store: SessionSummaryStore;
  summarize: SessionSummarizer;
  options: CompactionOptions;
  /** Counts the older messages' tokens (default: four characters a token). */
  counter?: TokenCounter;
}

/**
 * The context stage (context_stage.ts) and then compaction: the memory a run
 * plans with, the session's summary in it when it has one.
 */
export async function loadMemory(
  input: Parameters<typeof loadLoopContext>[0] & { compaction?: CompactionDeps; logger: Logger },
): Promise<LoadedContext> {
  const deps = input.compaction;
  const session = `${input.caller.owner}\u0000${input.request.sessionId}`;
  // A session this process has seen long enough to need its summary state has it read while
  // the context loads (at once, where the database serves two statements so); any other
  // reads it after, and only if the context says it is that long.
  const state = deps && deps.options.afterTokens > 0 && longSessions(deps).has(session)
    ? deps.store.loadState(input.caller, input.request.sessionId, deps.options.keepRecent)
    : undefined;
  state?.catch(() => {}); // awaited by compaction, if the session needs it
  const memory = await loadLoopContext(input);
  const loaded = (memory.context.recentMessages ?? []) as StoredMessage[];
  if (deps && loaded.length >= deps.options.keepRecent) {
    longSessions(deps).add(session);
  }
  const context = await withSessionSummary(memory.context, {
    deps,
    state,
    caller: input.caller,
    sessionId: input.request.sessionId,
    usage: input.usage,
    signal: input.signal,
    logger: input.logger,
  });
  return { ...memory, context, recentMessages: context.recentMessages as StoredMessage[] };
}

/**
 * The sessions (owner and id) a request found as long as the recent window, the latest
 * 10,000 per compaction: a session only grows until it is deleted, and one deleted since is
 * read as before (its state, read early, is not used).
 */
function longSessions(deps: CompactionDeps): Set<string> {
  let sessions = LONG_SESSIONS.get(deps);
  if (!sessions) LONG_SESSIONS.set(deps, sessions = new BoundedSet<string>(10_000));
  return sessions;
}
const LONG_SESSIONS = new WeakMap<CompactionDeps, Set<string>>();

/** Most messages one compaction reads. */
const HISTORY_LIMIT = 1_000;

/** The session's summary, after folding in the older messages when they passed the budget. */
export async function compactSession(
  { deps, caller, sessionId, usage, signal, state: read }: {
    deps: CompactionDeps;
    caller: Caller;
    sessionId: string;
    usage?: UsageMeter;
    signal?: AbortSignal;
    /** The session's state, if it is being read already. */
    state?: Promise<SummaryState>;
  },
): Promise<SessionSummary | undefined> {
  const { store, options } = deps;
  const state = await (read ?? store.loadState(caller, sessionId, options.keepRecent));
  const current = state.summary;
  // Too little older text to reach the budget, whatever its tokens: no history to read.
  if (state.older.messages === 0 || mostTokens(state.older, deps.counter) < options.afterTokens) {
    return current;
  }
  const history = await store.history(caller, sessionId, {
    afterSeq: current?.coveredSeq ?? -1,
    limit: HISTORY_LIMIT,
  });
  const older = history.slice(0, Math.max(0, history.length - options.keepRecent));
  if (older.length === 0) return current;
  const counter = deps.counter ?? APPROXIMATE_COUNTER;
  const tokens = await counter.countText(older.map((m) => m.content).join("\n"));
  if (tokens < options.afterTokens) return current;
  const folded = history.slice(0, turnEnd(history, older.length));
  if (folded.length === 0) return current;
  const summary = await deps.summarize({
    previous: current?.summary,
    messages: folded,
    maxTokens: options.summaryTokens,
  }, { signal, usage });
  // Another request may have compacted meanwhile: then its summary stands.
  await store.save(caller, sessionId, {
    summary,
    coveredSeq: folded[folded.length - 1].seq,
    coveredMessages: (current?.coveredMessages ?? 0) + folded.length,
    expectedVersion: current?.version ?? 0,
  });
  return await store.load(caller, sessionId, options.keepRecent);
}

/**
 * The most tokens the older messages can count as, joined by newlines (a
 * character is at least a byte): four characters a token by default; with a
 * tokenizer, whose every token spans at least a byte, plus the prompt
 * counter's 5 % safety margin.
 */
export function mostTokens(
  { messages, bytes }: { messages: number; bytes: number },
  counter?: TokenCounter,
): number {
  const length = bytes + messages;
  return (counter ? Math.ceil(length * 1.05) : Math.ceil(length / 4)) + 1;
}

/**
 * Where a summary of `history[0..cut)` may end: at `cut` when a user message
 * follows, else after the rest of that turn (the recent messages it takes
 * are then not shown twice), else — when the turn runs to the end — before it.
 */
export function turnEnd(history: readonly Pick<HistoryMessage, "role">[], cut: number): number {
  let end = cut;
  while (end < history.length && history[end].role !== "user") end++;
  if (end < history.length) return end;
  end = cut;
  while (end > 0 && history[end].role !== "user") end--;
  return end;
}

/**
 * The loop context with the summary: `sessionSummary` added and the recent
 * messages it covers left out. Compaction that fails leaves the context as it
 * was (and logs why): memory is a help, not a condition of answering.
 */
export async function withSessionSummary(
  context: Record<string, unknown>,
  { deps, state, caller, sessionId, usage, signal, logger }: {
    deps?: CompactionDeps;
    /** The session's state, if it is being read already. */
    state?: Promise<SummaryState>;
    caller: Caller;
    sessionId: string;
    usage?: UsageMeter;
    signal?: AbortSignal;
    logger: Logger;
  },
): Promise<Record<string, unknown>> {
  if (!deps || deps.options.afterTokens <= 0) return context;
  // Fewer messages than the recent window: the session has none older, so neither a summary
  // nor anything to fold into one (a summary goes only with its whole session).
  const loaded = (context.recentMessages ?? []) as StoredMessage[];
  if (loaded.length < deps.options.keepRecent) return context;
  let summary: SessionSummary | undefined;
  try {
    summary = await compactSession({ deps, caller, sessionId, usage, signal, state });
  } catch (error) {
    logger.warn("could not compact the session; the planner sees the recent messages only", {
      error: (error as { code?: string }).code ?? "unknown",
    });
    return context;
  }
  if (!summary) return context;
  const covered = new Set(summary.coveredRecentIds);
  const recent = (context.recentMessages ?? []) as StoredMessage[];
  return {
    ...context,
    sessionSummary: { summary: summary.summary, coveredMessages: summary.coveredMessages },
    recentMessages: recent.filter((message) => !covered.has(message.id)),
  };
}
