/**
 * Reads a JSON request body defensively: content type, size limit (also when
 * no Content-Length is sent), strict UTF-8, then JSON. Each failure is a 4xx
 * with its own code.
 */
import { AppError } from "../errors.ts";

/** Reads `req`'s body as JSON, within `maxBytes`. */
export async function readJsonBody(
  req: Request,
  { maxBytes }: { maxBytes: number },
): Promise<unknown> {
  const type = req.headers.get("content-type") ?? "";
  if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
    throw new AppError(
      "UNSUPPORTED_MEDIA_TYPE",
      `Send the body as JSON with "Content-Type: application/json"; got ${
        type ? `"${type}"` : "no content type"
      }`,
    );
  }
  const length = req.headers.get("content-length");
  const declared = length === null ? NaN : Number(length);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  // With a declared length the server reads exactly that many bytes: one read suffices.
  const bytes = Number.isInteger(declared) ? await readAll(req) : await readLimited(req, maxBytes);
  if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new AppError("INVALID_ENCODING", "The body is not valid UTF-8; encode it as UTF-8 JSON");
  }
  if (text.trim() === "") {
    throw new AppError("INVALID_JSON", "The body is empty; send a JSON object");
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AppError("INVALID_JSON", `The body is not valid JSON: ${(error as Error).message}`);
  }
}

/** Strict UTF-8 (a decoder without `stream` keeps no state between calls). */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

async function readAll(req: Request): Promise<Uint8Array> {
  try {
    return await req.bytes();
  } catch {
    throw new AppError("BAD_REQUEST", "The request body could not be read; send it again");
  }
}

async function readLimited(req: Request, maxBytes: number): Promise<Uint8Array> {
  if (!req.body) return new Uint8Array();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError("BAD_REQUEST", "The request body could not be read; send it again");
  }
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function tooLarge(maxBytes: number): AppError {
  return new AppError(
    "PAYLOAD_TOO_LARGE",
    `The body is larger than ${maxBytes} bytes; send fewer or shorter messages`,
    { details: { maxBytes } },
  );
}
