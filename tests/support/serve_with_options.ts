/**
 * `deno task start`'s entry with options given in code, for process tests
 * and load benches: the options and the connection guard's limits come as
 * JSON in `MCP_LOOP_TEST_SERVE` (a test's own variable, never the product's):
 * `{"options": {...ConfigOptions}, "connections": {...GuardLimits}}`.
 */
import tools from "../../functions/mcp-loop/tools.ts";
import { LOCAL } from "../../shared/app/runtime.ts";
import { serveLocal } from "../../shared/local/serve_local.ts";

const { options = {}, connections = {} } = JSON.parse(Deno.env.get("MCP_LOOP_TEST_SERVE") ?? "{}");
await serveLocal({ tools, options, connections, runtime: LOCAL });
