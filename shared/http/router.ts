/**
 * Routes and HTTP plumbing: the same paths under `/mcp-loop` (how Supabase
 * hands requests to the function) and `/functions/v1/mcp-loop` (the URLs of
 * Supabase's docs), CORS (./cors.ts), and JSON 404/405 answers. A dozen fixed
 * paths, tried in order: no router package in the deployed bundle.
 */
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

/** A route's handler: the request, its trace and the path's parameters. */
type RouteHandler = (
  req: Request,
  trace: RequestTrace,
  params: Record<string, string>,
) => Response | Promise<Response>;

/** A method ("*" for any) and a path whose `:name` segments are parameters. */
interface Route {
  method: string;
  segments: string[];
  handle: RouteHandler;
}

/** The router: its `fetch` is the edge function's handler. */
export interface Router {
  fetch(req: Request): Promise<Response>;
}

/** The routes, tried in the order they were added. */
class Routes {
  readonly #routes: Route[] = [];

  add(method: string, path: string, handle: RouteHandler): void {
    this.#routes.push({ method, segments: path.split("/"), handle });
  }

  /** The first route for this method and path, with its parameters. */
  find(method: string, pathname: string) {
    const segments = pathname.split("/");
    for (const route of this.#routes) {
      if (route.method !== "*" && route.method !== method) continue;
      const params = matchSegments(route.segments, segments);
      if (params) return { route, params };
    }
    return undefined;
  }
}

/** Builds the router. */
export function createRouter(deps: RouterDeps): Router {
  const routes = new Routes();
  for (const base of BASE_PATHS) routeBase(routes, base, deps);
  const cors = createCors(deps.corsOrigins);
  const { logger } = deps;
  return {
    async fetch(req) {
      const trace = startTrace(req, { logger });
      const preflight = cors.preflight(req);
      let res = preflight ?? await dispatch(routes, req, trace, logger);
      res = withHeaders(res, (headers) => {
        headers.set("x-request-id", trace.id);
        if (!preflight) cors.decorate(req, headers);
      });
      trace.end(res.status);
      return res;
    },
  };
}

/**
 * The route's answer, a thrown error's or the 404. HEAD is answered as GET
 * without the body (RFC 9110, section 9.3.2).
 */
async function dispatch(
  routes: Routes,
  req: Request,
  trace: RequestTrace,
  logger: Logger,
): Promise<Response> {
  const head = req.method === "HEAD";
  const pathname = new URL(req.url).pathname;
  const found = routes.find(head ? "GET" : req.method, pathname);
  if (!found) return notFound(req.method, pathname, trace, logger);
  try {
    const res = await found.route.handle(req, trace, found.params);
    if (!head) return res;
    // Nobody reads a HEAD answer's body: cancelled, a stream behind it stops (a run's events).
    await res.body?.cancel();
    return new Response(null, res);
  } catch (error) {
    return errorResponse(error, { logger, requestId: trace.id });
  }
}

/** The parameters when `segments` fit the route's, else undefined. */
function matchSegments(route: string[], segments: string[]): Record<string, string> | undefined {
  if (route.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < route.length; i++) {
    const want = route[i];
    if (want.startsWith(":")) {
      if (segments[i] === "") return undefined;
      params[want.slice(1)] = decoded(segments[i], decodeURIComponent);
    } else if (want !== segments[i] && want !== decoded(segments[i], decodeURI)) {
      return undefined;
    }
  }
  return params;
}

/** `text` decoded, or as it is when it is not valid percent-encoding. */
function decoded(text: string, decode: (text: string) => string): string {
  if (!text.includes("%")) return text;
  try {
    return decode(text);
  } catch {
    return text;
  }
}

function notFound(method: string, pathname: string, trace: RequestTrace, logger: Logger) {
  trace.outcome = "NOT_FOUND";
  return errorResponse(
    new AppError(
      "NOT_FOUND",
      `No route for ${method} ${pathname}; use POST /mcp-loop, /mcp-loop/runs/{runId}, DELETE /mcp-loop/sessions/{sessionId}, GET or DELETE /mcp-loop/data, GET /mcp-loop/health, /mcp-loop/mcp or GET /mcp-loop/playground`,
    ),
    { logger },
  );
}

/** Every route under one base path, in the order they are tried. */
function routeBase(routes: Routes, base: string, deps: RouterDeps): void {
  for (const path of [base, `${base}/`]) {
    routes.add("POST", path, (req, trace) => deps.loop(req, trace));
    routes.add("*", path, () => methodNotAllowed(["POST", "OPTIONS"]));
  }
  routes.add("GET", `${base}/health`, (req, trace) => deps.health(req, trace));
  routes.add("*", `${base}/health`, () => methodNotAllowed(["GET", "OPTIONS"]));
  if (deps.runs) routeRuns(routes, base, deps.runs);
  if (deps.data) routeData(routes, base, deps.data);
  const mcp = deps.mcp;
  if (mcp) routes.add("*", `${base}/mcp`, (req, trace) => mcp(req, trace));
  const metadata = deps.protectedResource;
  if (metadata) {
    routes.add("GET", `${base}${METADATA_PATH}`, (req) => metadata(req));
    // Where RFC 9728 puts it for a resource on a path, for clients that look there first.
    routes.add("GET", `${METADATA_PATH}${base}/mcp`, (req) => metadata(req));
  }
  const playground = deps.playground;
  if (playground) {
    routes.add("GET", `${base}/playground`, () => playground(""));
    // The page's relative URLs need the path without a trailing slash.
    routes.add("GET", `${base}/playground/`, () => redirect(`${base}/playground`));
    routes.add("GET", `${base}/playground/:file`, (_req, _trace, p) => playground(p.file));
  }
}

/** `/runs/{runId}`, its events and its actions. */
function routeRuns(routes: Routes, base: string, runs: NonNullable<RouterDeps["runs"]>): void {
  routes.add("GET", `${base}/runs/:runId`, (req, trace, p) => runs(req, trace, p.runId, "view"));
  routes.add(
    "GET",
    `${base}/runs/:runId/events`,
    (req, trace, p) => runs(req, trace, p.runId, "events"),
  );
  for (const action of ["approvals", "resume", "cancel"] as const) {
    routes.add(
      "POST",
      `${base}/runs/:runId/${action}`,
      (req, trace, p) => runs(req, trace, p.runId, action),
    );
  }
}

/** A caller's data: `/sessions/{sessionId}` and `/data`. */
function routeData(routes: Routes, base: string, data: NonNullable<RouterDeps["data"]>): void {
  routes.add(
    "DELETE",
    `${base}/sessions/:sessionId`,
    (req, trace, p) => data(req, trace, "delete_session", p.sessionId),
  );
  routes.add("*", `${base}/sessions/:sessionId`, () => methodNotAllowed(["DELETE", "OPTIONS"]));
  routes.add("GET", `${base}/data`, (req, trace) => data(req, trace, "export"));
  routes.add("DELETE", `${base}/data`, (req, trace) => data(req, trace, "delete_all"));
  routes.add("*", `${base}/data`, () => methodNotAllowed(["GET", "DELETE", "OPTIONS"]));
}

function redirect(location: string): Response {
  return new Response(null, { status: 301, headers: { location } });
}

/**
 * The response with its headers set, in place: copying a response costs (a
 * tenth of the MCP throughput), so only one whose headers are immutable (a
 * `fetch` response passed on) is copied.
 */
function withHeaders(res: Response, set: (headers: Headers) => void): Response {
  try {
    set(res.headers);
    return res;
  } catch {
    const copy = new Response(res.body, res);
    set(copy.headers);
    return copy;
  }
}

function methodNotAllowed(allowed: string[]): Response {
  return errorResponse(
    new AppError("METHOD_NOT_ALLOWED", `This path accepts ${allowed.join(", ")}`),
    { logger: SILENT_LOGGER, headers: { allow: allowed.join(", ") } },
  );
}
