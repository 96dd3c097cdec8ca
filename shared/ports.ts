/**
 * The ports: small role-named interfaces the loop depends on. Adapters in
 * `shared/adapters/<tech>/` implement them; `shared/app/app.ts` chooses which.
 */
import type {
  ActionResult,
  ChatRole,
  MCPRequest,
  PlannedAction,
  ToolMetadata,
} from "./contracts.ts";

/** Turns texts into vectors of a fixed dimension. */
export interface Embedder {
  /** Model name stored beside every vector; vectors of different models are never compared. */
  readonly model: string;
  /** Length of each vector (stored vectors are zero-padded to 1536). */
  readonly dimensions: number;
  /** One vector per text, in order; a remote model's tokens are counted in `usage`. */
  embed(texts: string[], options?: EmbedOptions): Promise<number[][]>;
}

/** Options of one embedding call. */
export type EmbedOptions = { signal?: AbortSignal; usage?: UsageMeter };

/** One message sent to a chat model. */
export type ChatModelMessage = { role: "system" | "user" | "assistant"; content: string };

/** A request to a chat model. */
export interface ChatCompletionRequest {
  messages: ChatModelMessage[];
  /** JSON matching this schema, where the server supports it; `strict` asks it to guarantee it. */
  jsonSchema?: { name: string; schema: Record<string, unknown>; strict?: boolean };
  /** Not sent to reasoning models; their `maxTokens` gets a reasoning allowance on top. */
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
}

/** Tokens one model call used (`cachedTokens`: of the prompt, from the server's cache). */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
  /** The model that answered, for its price (the adapter's configured name). */
  model?: string;
}

/** A chat model's answer. */
export type ChatCompletion = { text: string; usage?: TokenUsage };

/** A chat model that answers with text. */
export interface ChatModel {
  readonly model: string;
  complete(request: ChatCompletionRequest): Promise<ChatCompletion>;
}

/** Counts the model calls of one run (planner, scorer, summary) and their tokens. */
export interface UsageMeter {
  add(tokens?: TokenUsage): void;
  /** Tokens of an embedding call (not counted as a model call), and the embedding model. */
  addEmbedding(tokens: number, model?: string): void;
  /** Before a chat model call: rejects (BUDGET_EXCEEDED) a call past the run's budget, not made then. */
  admit?(call: ModelCall): Promise<void>;
  /** Whether a call was refused for the budget (the run then stops with `budget`). */
  budgetExceeded?(): boolean;
}

/** A chat model call about to be made. */
export interface ModelCall {
  model: string;
  request: ChatCompletionRequest;
}

/** Counts tokens as a model's tokenizer does (exactly for OpenAI's models; an estimate for others). */
export interface TokenCounter {
  /** The prompt tokens of a chat request: its structured-output schema and its messages. */
  countRequest(request: ChatCompletionRequest): Promise<number>;
  /** The tokens of a text. */
  countText(text: string): Promise<number>;
}

/** Who is calling: decides which rows a request may see and write. */
export interface Caller {
  /** The Supabase user id from a verified JWT, else null. */
  userId: string | null;
  /** The verified JWT claims, set as `request.jwt.claims` so RLS applies. */
  claims?: Record<string, unknown>;
  /** The verified JWT itself, for stores that call Supabase's API as the user. */
  token?: string;
  /** Owner key for rows scoped to callers without a user id ("anonymous", "key:<name>"). */
  owner: string;
}

/** The caller of local, unauthenticated requests. */
export const ANONYMOUS: Caller = Object.freeze({ userId: null, owner: "anonymous" });

/** A tool as a planner sees it. */
export interface PlannerTool extends ToolMetadata {
  /** The remote MCP server it comes from: its description is that server's text, not ours. */
  remote?: string;
  /** JSON Schema of the tool's output, when it declares one (what a step reference can reach). */
  outputSchema?: Record<string, unknown>;
  /** The tool only reads (`readOnlyHint: true`): planning it changes nothing. */
  readOnly?: boolean;
  /** Offered even when tool search picks the tools. */
  alwaysOffer?: boolean;
  /** Whether the tool's own schema accepts `value` for arg `name` (local tools; offline planning). */
  acceptsArg?: (name: string, value: unknown) => boolean;
}

/** The score of the previous round of a refinement run, for the planner to improve on. */
export interface RoundFeedback {
  score: number;
  threshold: number;
  feedback: string;
}

/** What a planner gets to plan with. */
export interface PlanInput {
  request: MCPRequest;
  /** The loop context (the planner must not send the raw embedding to a model). */
  context: Record<string, unknown>;
  /** The tools it may choose from, already restricted by the tool policy and `availableTools`. */
  tools: PlannerTool[];
  signal: AbortSignal;
  /** Which round this plan is for (1 for the first). */
  round?: number;
  /** The most rounds this run may take. */
  maxRounds?: number;
  /** The steps of the earlier rounds; step `n` is `results[n]`, which references name. */
  results?: readonly ActionResult[];
  /** The previous round's score, in a refinement run. */
  feedback?: RoundFeedback;
  /** Where model calls are counted. */
  usage?: UsageMeter;
}

/** What went wrong with a plan, sent back to a planner that can repair. */
export interface PlanFeedback {
  /** The planner's previous raw output, when it had one. */
  raw?: string;
  /** Human- and model-readable problems, with paths like `[1].args.loop_id`. */
  issues: string[];
}

/** Chooses the tool calls for a request. */
export interface Planner {
  plan(input: PlanInput): Promise<PlannedAction[]>;
  /** One more attempt after the plan failed its check (chat planners implement it). */
  repair?(input: PlanInput, feedback: PlanFeedback): Promise<PlannedAction[]>;
}

/** What a scorer judges: one round's outcome against the user's request. */
export interface ScoreInput {
  request: MCPRequest;
  round: number;
  /** This round's steps. */
  results: readonly ActionResult[];
  /** The reply written so far (the last `finalize_summary` output), if any. */
  summaryMessage?: string;
  /** The loop's quality threshold, 1–100. */
  threshold: number;
  signal: AbortSignal;
  usage?: UsageMeter;
}

/** A round's score (integer 0–100) and what would raise it. */
export interface RoundScore {
  score: number;
  feedback: string;
}

/** Scores a round of a refinement run. */
export interface Scorer {
  score(input: ScoreInput): Promise<RoundScore>;
}

/** A stored chat message as the loop sees it. */
export interface StoredMessage {
  id: string;
  sessionId: string;
  role: ChatRole;
  content: string;
  createdAt: string;
}

/** A ranking that finds earlier messages: full-text search, or vector similarity. */
export type MatchSource = "full_text" | "vector";

/** An earlier message found for the latest one (hybrid retrieval, fused by reciprocal rank). */
export interface SemanticMatch extends StoredMessage {
  /** Cosine similarity in [-1, 1] where both have vectors of the same model; higher is closer. */
  similarity?: number;
  /** The rankings that found it. */
  foundBy: MatchSource[];
  /** Its fused reciprocal-rank score; higher ranks first. */
  score: number;
}

/** An audit row: one tool call, from the loop or over MCP. */
export interface AuditEvent {
  source: "loop" | "mcp";
  tool: string;
  input: unknown;
  output?: unknown;
  success: boolean;
  error?: string;
  durationMs: number;
  sessionId?: string;
  requestId?: string;
  /** The run the call belongs to (a row of a run an erasure removed is not written). */
  runId?: string;
}

/** What the context stage loads. */
export interface ConversationContext {
  recentMessages: StoredMessage[];
  semanticMatches: SemanticMatch[];
  /** The caller's working memory (a small JSON document; `{}` when there is none). */
  workingMemory?: Record<string, unknown>;
}

/** What a turn's context is loaded for. */
export interface LoadContextInput {
  caller: Caller;
  sessionId: string;
  /** The latest message's text, for the full-text side (without it only vectors rank). */
  text?: string;
  embedding: number[];
  embeddingModel: string;
  signal?: AbortSignal;
}

/** One turn to store. */
export interface SaveTurnInput {
  caller: Caller;
  sessionId: string;
  userMessage: { content: string; embedding: number[]; embeddingModel: string };
  assistantMessage?: { content: string };
  events: AuditEvent[];
  /** The run the turn belongs to: a second save of the same run's turn stores nothing. */
  runId?: string;
}

/** Reads and writes the conversation memory. */
export interface ConversationStore {
  /** The session's recent messages and the messages most similar to `embedding`. */
  loadContext(input: LoadContextInput): Promise<ConversationContext>;
  /** Stores one turn atomically: the user's message and embedding, the reply, the audit rows. */
  saveTurn(input: SaveTurnInput): Promise<void>;
  /** The caller's latest `limit` messages of one session, oldest first (no vectors). */
  listMessages(caller: Caller, sessionId: string, limit: number): Promise<StoredMessage[]>;
  /** The caller's session ids that start with `prefix`, most recently used first. */
  listSessions(caller: Caller, prefix: string, limit: number): Promise<string[]>;
  /**
   * The caller's messages with these ids, oldest first (at most 1,000; no vectors);
   * an id of another caller's message, of one deleted, or no message at all is skipped.
   */
  messagesByIds(caller: Caller, ids: readonly string[]): Promise<StoredMessage[]>;
}

/** Records audit rows of tool calls made outside a loop turn (over MCP). */
export interface AuditLog {
  /** Queues the rows; resolves once they are written. */
  record(caller: Caller, events: AuditEvent[]): Promise<void>;
  /** Resolves once everything recorded so far is written. */
  flush(): Promise<void>;
}

/** Structured log lines; silent unless an adapter is given. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A logger that drops everything (the default). */
export const SILENT_LOGGER: Logger = Object.freeze({
  debug() {},
  info() {},
  warn() {},
  error() {},
});

/** Runs SQL statements with `$1`-style parameters. */
export interface SqlQueryable {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
}

/** Statements inside a transaction. */
export interface SqlTx extends SqlQueryable {
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

/** A Postgres database: statements and transactions. */
export interface Sql extends SqlTx {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T>;
  /** Releases the connection(s); further calls fail. */
  close(): Promise<void>;
}
