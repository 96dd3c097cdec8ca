// The playground page's script: streams a run with the web client and shows
// its events as they arrive (render.js). A call that needs approval gets
// Approve and Deny buttons; Stop cancels the run; the run on the page is kept
// in sessionStorage (its id and the events shown), so a reload shows them
// again and follows the rest with `events(runId, { lastEventId })`.
// The client is served beside this file; imported by URL so type checks of shared/ skip it.
import {
  $,
  clearDecisions,
  el,
  reset,
  setStatus,
  show,
  showError,
  showModels,
  showPending,
} from "./render.js";
const { createMcpLoopClient } = await import(new URL("./client.js", import.meta.url).href);

const SESSIONS_KEY = "mcp-loop-playground:sessions";
const TOKEN_KEY = "mcp-loop-playground:token";
const RUN_KEY = "mcp-loop-playground:run";

// The function's URL: this page's path without its "/playground" tail.
const endpoint = new URL(location.pathname.replace(/\/playground\/?$/, ""), location.origin);
const client = createMcpLoopClient({
  url: endpoint,
  accessToken: () => $("token").value.trim() || undefined,
});

/** The run on the page: its id, the numbered events shown, and how its last stretch ended. */
let run = { runId: undefined, events: [] };
/** Aborts the stream being read, while one is. */
let reading;
/** How the last stretch read ended: a `result` or `error` event. */
let ended;

function storedSessions() {
  try {
    return JSON.parse(localStorage.getItem(SESSIONS_KEY) ?? "[]");
  } catch {
    return [];
  }
}

function remember(sessionId) {
  const sessions = [sessionId, ...storedSessions().filter((s) => s !== sessionId)].slice(0, 10);
  try {
    localStorage.setItem(SESSIONS_KEY, JSON.stringify(sessions));
  } catch { /* private mode: the list lasts for this page only */ }
  showSessions(sessions);
}

function showSessions(sessions) {
  $("sessions").replaceChildren(...sessions.map((s) => el("option", { value: s })));
}

function newSessionId() {
  return `playground-${crypto.randomUUID().slice(0, 8)}`;
}

/** Keeps the run on the page for a reload; forgets it once it cannot go on. */
function keepRun() {
  try {
    if (run.runId && !finished()) sessionStorage.setItem(RUN_KEY, JSON.stringify(run));
    else sessionStorage.removeItem(RUN_KEY);
  } catch { /* not kept: a reload starts afresh */ }
}

function finished() {
  if (!ended) return false;
  if (ended.type === "error") return true;
  return !["approval_required", "deadline"].includes(ended.data.stopReason);
}

/** Shows one event; numbered ones are kept for a reload. */
function handle(e, { replay = false } = {}) {
  if (e.type === "run") run.runId = e.runId;
  if (e.type === "result" || e.type === "error") ended = e;
  if (e.type === "approval_required") e.pendingApprovals.forEach((p) => showPending(p, decide));
  show[e.type]?.(e);
  if (!replay && e.id !== undefined) {
    run.events.push(e);
    keepRun();
  }
}

/** Reads `events` (a stream the client opens) into the page. */
async function read(open, running = "Running…") {
  reading = new AbortController();
  showError(undefined);
  $("send").disabled = true;
  $("stop").disabled = false;
  setStatus(running);
  try {
    for await (const e of open(reading.signal)) handle(e);
  } catch (error) {
    if (error.code !== "CANCELLED") showError(`${error.code ?? "ERROR"}: ${error.message}`);
    // A run that is gone, or a stream stopped before its run was known, cannot go on.
    if (error.code === "RUN_NOT_FOUND" || error.code === "ABORTED") {
      ended = { type: "error", error };
    }
  } finally {
    reading = undefined;
    $("send").disabled = false;
    keepRun();
    settle();
  }
}

/** The page's state once a stream ended: done, waiting for a decision, stopped or failed. */
function settle() {
  const stop = ended?.type === "result" ? ended.data.stopReason : ended?.error.code;
  const waiting = stop === "approval_required";
  if (!waiting) clearDecisions();
  $("stop").disabled = !waiting;
  setStatus(
    waiting
      ? "Waiting for your approval."
      : stop === "cancelled" || stop === "CANCELLED"
      ? "Cancelled."
      : stop === "ABORTED"
      ? "Stopped."
      : stop === "deadline"
      ? "Paused at its deadline."
      : ended?.type === "result"
      ? "Done."
      : "Failed.",
  );
}

async function send(event) {
  event.preventDefault();
  const content = $("message").value.trim();
  if (!content || reading) return;
  const sessionId = $("session").value.trim() || newSessionId();
  $("session").value = sessionId;
  remember(sessionId);
  const maxRounds = Number($("max-rounds").value) || undefined;
  const loopType = $("refinement").value;
  const request = {
    mode: $("mode").value,
    sessionId,
    messages: [{ role: "user", content }],
    ...(maxRounds ? { maxRounds } : {}),
    ...(loopType ? { refinement: { loopType } } : {}),
  };
  try {
    sessionStorage.setItem(TOKEN_KEY, $("token").value);
  } catch { /* not kept */ }
  reset();
  run = { runId: undefined, events: [] };
  ended = undefined;
  await read((signal) => client.stream(request, { signal }));
}

/** Sends a person's decision on one pending call; the run goes on in the page. */
function decide(pending, approved, reason) {
  if (reading || !run.runId) return;
  clearDecisions();
  ended = undefined;
  const approvals = [{ id: pending.id, approved, ...(reason ? { reason } : {}) }];
  read((signal) => client.approveStream(run.runId, approvals, { signal }));
}

/** Stop: cancels the run (at once when it waits; its stream then ends with the cancel). */
async function stop() {
  if (!run.runId) return reading?.abort();
  $("stop").disabled = true;
  setStatus("Stopping…");
  try {
    const view = await client.cancel(run.runId);
    if (!reading) {
      ended = { type: "error", error: view.error ?? { code: "CANCELLED", message: "cancelled" } };
      keepRun();
      settle();
    }
  } catch (error) {
    showError(`${error.code ?? "ERROR"}: ${error.message}`);
  }
}

/** After a reload: the run's events shown before it, then the rest from the last one's id. */
function reattach() {
  let saved;
  try {
    saved = JSON.parse(sessionStorage.getItem(RUN_KEY) ?? "null");
  } catch { /* none */ }
  if (!saved?.runId || !Array.isArray(saved.events)) return false;
  reset();
  run = saved;
  for (const e of saved.events) handle(e, { replay: true });
  const lastEventId = saved.events.at(-1)?.id ?? 0;
  read((signal) => client.events(saved.runId, { lastEventId, signal }), "Reattaching…");
  return true;
}

$("run-form").addEventListener("submit", send);
$("stop").addEventListener("click", stop);
$("new-session").addEventListener("click", () => ($("session").value = newSessionId()));
$("message").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) $("run-form").requestSubmit();
});
const sessions = storedSessions();
showSessions(sessions);
$("session").value = sessions[0] ?? newSessionId();
try {
  $("token").value = sessionStorage.getItem(TOKEN_KEY) ?? "";
} catch { /* nothing kept */ }
fetch(new URL(`${endpoint.pathname}/health`, location.origin))
  .then((res) => res.json())
  .then((health) => health.planner && showModels(health))
  .catch(() => {});
if (!reattach()) setStatus("Ready.");
