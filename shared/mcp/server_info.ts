/** How this server names itself to MCP peers (as a server, and as a client of remote servers). */
export const SERVER_INFO = { name: "mcp-loop", version: "2.0.0" };
