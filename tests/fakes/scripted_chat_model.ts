/**
 * A test chat model that records every request and plays back queued replies
 * (a text, or a function of the request; the last one repeats).
 */
import type {
  ChatCompletion,
  ChatCompletionRequest,
  ChatModel,
  TokenUsage,
} from "../../shared/ports.ts";

/** One queued reply. */
export type ScriptedText = string | ((request: ChatCompletionRequest) => string);

/** Plays back `replies` in order and keeps `requests`. */
export class ScriptedChatModel implements ChatModel {
  readonly model = "scripted-chat-model";
  readonly requests: ChatCompletionRequest[] = [];
  /** Tokens each reply reports (none unless set). */
  usage?: TokenUsage;
  readonly #replies: ScriptedText[];

  constructor(...replies: ScriptedText[]) {
    this.#replies = replies.length > 0 ? replies : [""];
  }

  complete(request: ChatCompletionRequest): Promise<ChatCompletion> {
    this.requests.push(request);
    const reply = this.#replies.length > 1 ? this.#replies.shift()! : this.#replies[0];
    const text = typeof reply === "function" ? reply(request) : reply;
    return Promise.resolve(this.usage ? { text, usage: { ...this.usage } } : { text });
  }
}
