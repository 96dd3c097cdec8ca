/** A `fetch` for tests: records each request and answers from a queue. */

/** One recorded request. */
export interface RecordedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

/** Builds the fake; `respond` makes each response from the request. */
export function recordingFetch(
  respond: (request: RecordedRequest) => Response | Promise<Response>,
): { fetch: typeof fetch; requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  const fake = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const text = await request.text();
    const recorded = {
      url: request.url,
      method: request.method,
      headers: Object.fromEntries(request.headers),
      body: text ? JSON.parse(text) : undefined,
    };
    requests.push(recorded);
    return await respond(recorded);
  };
  return { fetch: fake as typeof fetch, requests };
}
