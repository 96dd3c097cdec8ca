/**
 * `GET /mcp-loop/data`'s body: the same JSON document as ever,
 * `{"success":true,"data":{"owner":…,"exportedAt":…,"messages":[…],"sessionSummaries":[…],
 * "workingMemory":…,"loops":[…],"runs":[…],"toolCalls":[…]}}`, written part by
 * part as the client reads it: the next page is read from the store only when
 * the client has taken the last one, so the function holds about one page
 * (shared/store/caller_export.ts) whatever the size of the history. A failure
 * after the first bytes cannot change the status any more: the body stops
 * short (the client sees the connection fail, never a complete document).
 */
import type { Caller, Logger } from "../ports.ts";
import {
  type CallerDataStore,
  EXPORT_SECTIONS,
  type ExportHead,
} from "../store/caller_data_port.ts";
import { sectionPages } from "../store/caller_export.ts";
import { describeError } from "../errors.ts";

/** The document's text, part by part; `head` was read before the response began. */
export async function* exportText(
  { store, caller, head }: { store: CallerDataStore; caller: Caller; head: ExportHead },
): AsyncGenerator<string> {
  yield `{"success":true,"data":{"owner":${JSON.stringify(head.owner)},"exportedAt":${
    JSON.stringify(head.exportedAt)
  }`;
  for (const section of EXPORT_SECTIONS) {
    // Where the document has always had it: after the summaries.
    if (section === "loops") yield `,"workingMemory":${JSON.stringify(head.workingMemory ?? null)}`;
    yield `,"${section}":[`;
    let first = true;
    for await (const rows of sectionPages(store, caller, section)) {
      yield `${first ? "" : ","}${rows.map((row) => JSON.stringify(row)).join(",")}`;
      first = false;
    }
    yield "]";
  }
  yield "}}";
}

/** A byte stream of `parts` that asks for the next part only when the reader wants more. */
export function pulledBody(
  parts: AsyncGenerator<string>,
  { logger, requestId }: { logger: Logger; requestId: string },
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await parts.next();
        if (done) controller.close();
        else controller.enqueue(encoder.encode(value));
      } catch (error) {
        logger.error("the export failed part way", { requestId, error: describeError(error) });
        controller.error(error);
      }
    },
    async cancel() {
      await parts.return(undefined);
    },
  });
}
