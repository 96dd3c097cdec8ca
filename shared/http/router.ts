/**
 * Routes and HTTP plumbing (Hono): the same paths under `/mcp-loop` (how
 * Supabase hands requests to the function) and `/functions/v1/mcp-loop` (the
 * URLs of Supabase's docs), CORS (./cors.ts), and JSON 404/405 answers.
 */
import { Hono } from "hono";
import { AppError } from "../errors.ts";
import { createCors } from "./cors.ts";
import type { OriginAllowance } from "../config/http_config.ts";
import type { RunAction } from "./runs_handler.ts";
import type { DataAction } from "./data_handler.ts";
import { type Logger, SILENT_LOGGER } from "../ports.ts";
import { type RequestTrace, startTrace } from "./request_trace.ts";
import { METADATA_PATH } from "./protected_resource.ts";
import { errorResponse } from "./responses.ts";

/** A request handler; under the router it gets the request's trace. */
export type Handler = (req: Request, trace?: RequestTrace) => Promise<Response>;

/** The handlers to route to. */
export interface RouterDeps {
  loop: Handler;
  health: Handler;
  /** MCP Streamable HTTP (all methods). */
  mcp?: Handler;
  /** The run routes (`/runs/{runId}` and its actions). */
  runs?: (req: Request, trace: RequestTrace, runId: string, action: RunAction) => Promise<Response>;
  /** A caller's data: deleting a session, exporting and deleting everything. */
  data?: (
    req: Request,
    trace: RequestTrace,
    action: DataAction,
    sessionId?: string,
  ) => Promise<Response>;
  /** The playground's files by name ("" for the page). */
  playground?: (file: string) => Response;
  /** The MCP endpoint's protected-resource metadata (RFC 9728), when sign-in discovery is on. */
  protectedResource?: (req: Request) => Response;
  corsOrigins: OriginAllowance;
  logger: Logger;
}

/** Path prefixes the function answers on. */
export const BASE_PATHS = ["/mcp-loop", "/functions/v1/mcp-loop"] as const;

/** The app the router builds, each request's trace in its context. */
type App = Hono<{ Variables: { trace: RequestTrace } }>;

/** Builds the app; its `fetch` is the edge function's handler. */
export function createRouter(deps: RouterDeps): Hono<{ Variables: { trace: RequestTrace } }> {
  const app: App = new Hono();
  useTraceAndCors(app, deps);
  for (const base of BASE_PATHS) routeBase(app, base, deps);
  app.notFound((c) => {
    c.get("trace").outcome = "NOT_FOUND";
    return errorResponse(
      new AppError(
        "NOT_FOUND",
        `No route for ${c.req.method} ${
          new URL(c.req.url).pathname
        }; use POST /mcp-loop, /mcp-loop/runs/{runId}, DELETE /mcp-loop/sessions/{sessionId}, GET or DELETE /mcp-loop/data, GET /mcp-loop/health, /mcp-loop/mcp or GET /mcp-loop/playground`,
      ),
      { logger: deps.logger },
    );
  });
  app.onError((error, c) =>
    errorResponse(error, { logger: deps.logger, requestId: c.get("trace")?.id })
  );
  return app;
}

/**
 * The first middleware, so every response — preflights and errors included —
 * carries the request id and CORS.
 */
function useTraceAndCors(app: App, { corsOrigins, logger }: RouterDeps): void {
  const cors = createCors(corsOrigins);
  app.use("*", async (c, next) => {
    const trace = startTrace(c.req.raw, { logger });
    c.set("trace", trace);
    const preflight = cors.preflight(c.req.raw);
    if (preflight) c.res = preflight;
    else await next();
    setHeaders(c, (headers) => {
      headers.set("x-request-id", trace.id);
      if (!preflight) cors.decorate(c.req.raw, headers);
    });
    trace.end(c.res.status);
  });
}

/** Every route under one base path, in the order Hono tries them. */
function routeBase(app: App, base: string, deps: RouterDeps): void {
  for (const path of [base, `${base}/`]) {
    app.post(path, (c) => deps.loop(c.req.raw, c.get("trace")));
    app.all(path, () => methodNotAllowed(["POST", "OPTIONS"]));
  }
  app.get(`${base}/health`, (c) => deps.health(c.req.raw, c.get("trace")));
  app.all(`${base}/health`, () => methodNotAllowed(["GET", "OPTIONS"]));
  if (deps.runs) routeRuns(app, base, deps.runs);
  if (deps.data) routeData(app, base, deps.data);
  const mcp = deps.mcp;
  if (mcp) app.all(`${base}/mcp`, (c) => mcp(c.req.raw, c.get("trace")));
  const metadata = deps.protectedResource;
  if (metadata) {
    app.get(`${base}${METADATA_PATH}`, (c) => metadata(c.req.raw));
    // Where RFC 9728 puts it for a resource on a path, for clients that look there first.
    app.get(`${METADATA_PATH}${base}/mcp`, (c) => metadata(c.req.raw));
  }
  const playground = deps.playground;
  if (playground) {
    app.get(`${base}/playground`, () => playground(""));
    // The page's relative URLs need the path without a trailing slash.
    app.get(`${base}/playground/`, (c) => c.redirect(`${base}/playground`, 301));
    app.get(`${base}/playground/:file`, (c) => playground(c.req.param("file")));
  }
}

/** `/runs/{runId}`, its events and its actions. */
function routeRuns(app: App, base: string, runs: NonNullable<RouterDeps["runs"]>): void {
  app.get(
    `${base}/runs/:runId`,
    (c) => runs(c.req.raw, c.get("trace"), c.req.param("runId"), "view"),
  );
  app.get(
    `${base}/runs/:runId/events`,
    (c) => runs(c.req.raw, c.get("trace"), c.req.param("runId"), "events"),
  );
  for (const action of ["approvals", "resume", "cancel"] as const) {
    app.post(
      `${base}/runs/:runId/${action}`,
      (c) => runs(c.req.raw, c.get("trace"), c.req.param("runId"), action),
    );
  }
}

/** A caller's data: `/sessions/{sessionId}` and `/data`. */
function routeData(app: App, base: string, data: NonNullable<RouterDeps["data"]>): void {
  app.delete(
    `${base}/sessions/:sessionId`,
    (c) => data(c.req.raw, c.get("trace"), "delete_session", c.req.param("sessionId")),
  );
  app.all(`${base}/sessions/:sessionId`, () => methodNotAllowed(["DELETE", "OPTIONS"]));
  app.get(`${base}/data`, (c) => data(c.req.raw, c.get("trace"), "export"));
  app.delete(`${base}/data`, (c) => data(c.req.raw, c.get("trace"), "delete_all"));
  app.all(`${base}/data`, () => methodNotAllowed(["GET", "DELETE", "OPTIONS"]));
}

/**
 * Sets headers on the response in place. Assigning `c.res` twice would make
 * Hono copy the whole response (a tenth of the MCP throughput), so that
 * happens only for a response whose headers are immutable.
 */
function setHeaders(c: { res: Response }, set: (headers: Headers) => void): void {
  try {
    set(c.res.headers);
  } catch {
    const copy = new Response(c.res.body, c.res);
    set(copy.headers);
    c.res = copy;
  }
}
function methodNotAllowed(allowed: string[]): Response {
  return errorResponse(
    new AppError("METHOD_NOT_ALLOWED", `This path accepts ${allowed.join(", ")}`),
    { logger: SILENT_LOGGER, headers: { allow: allowed.join(", ") } },
  );
}
