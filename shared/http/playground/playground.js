// The playground page's script (placeholder until the page is built).
// The client is served beside this file; imported by URL so type checks of shared/ skip it.
const { createMcpLoopClient } = await import(new URL("./client.js", import.meta.url).href);

const status = document.getElementById("status");
if (status) {
  status.textContent = typeof createMcpLoopClient === "function" ? "Ready." : "No client.";
}
