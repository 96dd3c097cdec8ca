/**
 * A test chat model that records every request and plays back queued replies
 * (a text, or a function of the request; the last one repeats).
 */
import type { ChatCompletionRequest, ChatModel } from "../../shared/ports.ts";

/** One queued reply. */
export type ScriptedText = string | ((request: ChatCompletionRequest) => string);

/** Plays back `replies` in order and keeps `requests`. */
export class ScriptedChatModel implements ChatModel {
  readonly model = "scripted-chat-model";
  readonly requests: ChatCompletionRequest[] = [];
  readonly #replies: ScriptedText[];

  constructor(...replies: ScriptedText[]) {
    this.#replies = replies.length > 0 ? replies : [""];
  }

  complete(request: ChatCompletionRequest): Promise<{ text: string }> {
    this.requests.push(request);
    const reply = this.#replies.length > 1 ? this.#replies.shift()! : this.#replies[0];
    return Promise.resolve({ text: typeof reply === "function" ? reply(request) : reply });
  }
}
