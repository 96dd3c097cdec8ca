// The playground page's script: streams one run with the web client and shows
// its events as they arrive. Plain browser JavaScript, no build step; every
// value from the server is written with textContent, never as HTML.
// The client is served beside this file; imported by URL so type checks of shared/ skip it.
const { createMcpLoopClient } = await import(new URL("./client.js", import.meta.url).href);

const $ = (id) => document.getElementById(id);
const SESSIONS_KEY = "mcp-loop-playground:sessions";
const TOKEN_KEY = "mcp-loop-playground:token";

// The function's URL: this page's path without its "/playground" tail.
const endpoint = new URL(location.pathname.replace(/\/playground\/?$/, ""), location.origin);
const client = createMcpLoopClient({
  url: endpoint,
  accessToken: () => $("token").value.trim() || undefined,
});

let running;

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

/** A DOM element with properties and children (strings become text nodes). */
function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children.filter((c) => c !== undefined && c !== null));
  return node;
}

function json(value) {
  return el("pre", {}, value === undefined ? "" : JSON.stringify(value, null, 2));
}

function setStatus(text) {
  $("status").textContent = text;
}

function showError(text) {
  $("error").hidden = !text;
  $("error").textContent = text ?? "";
}

function reset() {
  showError(undefined);
  $("context-note").textContent = "Loading context…";
  for (const id of ["recent", "matches", "plans", "steps", "score-chart"]) $(id).replaceChildren();
  $("scores-section").hidden = true;
  $("score-feedback").textContent = "";
  $("summary").textContent = "No summary yet.";
  $("outcome").textContent = "";
}

function message(m) {
  const similarity = m.similarity === undefined ? "" : ` (similarity ${m.similarity.toFixed(3)})`;
  return el(
    "li",
    {},
    el("strong", {}, `${m.role}: `),
    m.content,
    el("span", {
      className: "muted",
    }, similarity),
  );
}

function showContext(event) {
  const { recent, matches } = event.messages;
  $("context-note").textContent =
    `${event.recentMessages} recent, ${event.semanticMatches} semantic matches (embedded with ${event.embeddingModel})`;
  $("recent").replaceChildren(...recent.map(message));
  $("matches").replaceChildren(...matches.map(message));
  if (!recent.length) $("recent").append(el("li", { className: "muted" }, "none"));
  if (!matches.length) $("matches").append(el("li", { className: "muted" }, "none"));
}

function showPlan(event) {
  const steps = event.plan.map((step) => `${step.tool} ${JSON.stringify(step.args)}`);
  $("plans").append(
    el(
      "li",
      {},
      el("strong", {}, `Round ${event.round}${event.repaired ? " (repaired)" : ""}: `),
      steps.length ? steps.join(" → ") : "nothing more to do",
    ),
  );
}

function stepRow(index) {
  const id = `step-${index}`;
  let row = $(id);
  if (!row) {
    row = el("tr", { id });
    row.dataset.index = String(index);
    $("steps").append(row);
  }
  return row;
}

function showStepStart(event) {
  stepRow(event.index).replaceChildren(
    el("td", {}, String(event.index)),
    el("td", {}, String(event.round)),
    el("td", {}, event.tool),
    el("td", {}, json(event.args)),
    el("td", {}),
    el("td", {}),
    el("td", { className: "status-running" }, "running"),
  );
}

function showStepEnd(event) {
  const r = event.result;
  const status = r.success ? "ok" : "failed";
  stepRow(event.index).replaceChildren(
    el("td", {}, String(event.index)),
    el("td", {}, String(event.round)),
    el("td", {}, r.tool),
    el("td", {}, json(r.input)),
    el("td", {}, r.success ? json(r.output) : json({ code: r.code, error: r.error })),
    el("td", {}, `${Math.round(r.durationMs)} ms`),
    el("td", { className: `status-${status}` }, status),
  );
}

const SVG = "http://www.w3.org/2000/svg";
const scores = [];

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The score history as a line against the threshold (0–100 up the side). */
function drawScores(threshold) {
  const [w, h, left, top, bottom] = [480, 150, 30, 18, 12];
  const y = (score) => top + (h - top - bottom) * (1 - score / 100);
  const x = (i) =>
    left + 16 + (scores.length > 1 ? (i * (w - left - 60)) / (scores.length - 1) : 0);
  const parts = [
    svg("line", { x1: left, x2: w - 10, y1: y(0), y2: y(0), stroke: "#b9c0c8" }),
    svg("text", { x: 2, y: y(100) + 4 }, "100"),
    svg("text", { x: 8, y: y(0) + 4 }, "0"),
    svg("line", {
      x1: left,
      x2: w - 10,
      y1: y(threshold),
      y2: y(threshold),
      stroke: "#1a7f37",
      "stroke-dasharray": "4 3",
      "data-threshold": threshold,
    }),
    svg("text", { x: w - 80, y: y(threshold) - 4 }, `threshold ${threshold}`),
    svg("polyline", {
      points: scores.map((s, i) => `${x(i)},${y(s)}`).join(" "),
      fill: "none",
      stroke: "#1f6feb",
      "stroke-width": 2,
    }),
    ...scores.map((s, i) =>
      svg("circle", { cx: x(i), cy: y(s), r: 4, fill: "#1f6feb", class: "score-point" })
    ),
    ...scores.map((s, i) => svg("text", { x: x(i) + 6, y: y(s) - 6 }, String(s))),
  ];
  $("score-chart").replaceChildren(...parts);
}

function showScore(event) {
  scores.splice(0, scores.length, ...event.loop.score_history);
  $("scores-section").hidden = false;
  drawScores(event.threshold);
  $("score-feedback").textContent =
    `Round ${event.round}: ${event.score}/100, ${event.decision}. ${event.feedback}`;
}

function showResult(data) {
  if (data.summaryMessage) $("summary").textContent = data.summaryMessage;
  const u = data.usage;
  const usage = u?.modelCalls
    ? `, ${u.modelCalls} model call(s), ${u.promptTokens + u.completionTokens} tokens`
    : "";
  $("outcome").textContent = `${data.rounds ?? 1} round(s), stopped: ${
    data.stopReason ?? "finalized"
  }${usage}`;
}

const handlers = {
  context: showContext,
  round_start: (e) => setStatus(`Round ${e.round} of at most ${e.maxRounds}…`),
  plan: showPlan,
  step_start: showStepStart,
  step_end: showStepEnd,
  score: showScore,
  summary: (e) => ($("summary").textContent = e.summaryMessage),
  result: (e) => showResult(e.data),
  error: () => {},
};

async function send(event) {
  event.preventDefault();
  const content = $("message").value.trim();
  if (!content || running) return;
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
  scores.length = 0;
  running = new AbortController();
  $("send").disabled = true;
  $("stop").disabled = false;
  setStatus("Running…");
  try {
    for await (const e of client.stream(request, { signal: running.signal })) handlers[e.type]?.(e);
    setStatus("Done.");
  } catch (error) {
    showError(`${error.code ?? "ERROR"}: ${error.message}`);
    setStatus(error.code === "ABORTED" ? "Stopped." : "Failed.");
  } finally {
    running = undefined;
    $("send").disabled = false;
    $("stop").disabled = true;
  }
}

$("run-form").addEventListener("submit", send);
$("stop").addEventListener("click", () => running?.abort());
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
setStatus("Ready.");
