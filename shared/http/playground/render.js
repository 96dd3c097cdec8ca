// The playground's display: each event of a run written into the page. Plain
// browser JavaScript; every value from the server is written with
// textContent, never as HTML.

/** The element with this id. */
export const $ = (id) => document.getElementById(id);

/** A DOM element with properties and children (strings become text nodes). */
export function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children.filter((c) => c !== undefined && c !== null));
  return node;
}

/** A value as a person reads it: strings as their text, structure as indented `key: value` lines. */
function json(value) {
  return el("pre", {}, value === undefined ? "" : readable(value, ""));
}

function readable(value, indent) {
  if (typeof value === "string") return indented(value, indent);
  if (value === null || typeof value !== "object") return String(value);
  const entries = Array.isArray(value)
    ? value.map((item) => ["-", item])
    : Object.entries(value).map(([key, item]) => [`${key}:`, item]);
  if (entries.length === 0) return Array.isArray(value) ? "[]" : "{}";
  return entries.map(([label, item]) => {
    const nested = item !== null && typeof item === "object" && Object.keys(item).length > 0;
    const multiline = typeof item === "string" && item.includes("\n");
    return nested || multiline
      ? `${indent}${label}\n${readable(item, `${indent}  `)}`
      : `${indent}${label} ${readable(item, "")}`;
  }).join("\n");
}

function indented(text, indent) {
  return text.split("\n").map((line) => indent + line).join("\n");
}

export function setStatus(text) {
  $("status").textContent = text;
}

export function showError(text) {
  $("error").hidden = !text;
  $("error").textContent = text ?? "";
}

/** Clears what an earlier run left on the page. */
export function reset() {
  showError(undefined);
  $("context-note").textContent = "Loading context…";
  for (const id of ["recent", "matches", "plans", "steps", "score-chart"]) $(id).replaceChildren();
  $("scores-section").hidden = true;
  $("score-feedback").textContent = "";
  $("summary").textContent = "No summary yet.";
  $("outcome").textContent = "";
  $("run-id").textContent = "";
  scores.length = 0;
}

function message(m) {
  const similarity = m.similarity === undefined ? "" : ` (similarity ${m.similarity.toFixed(3)})`;
  return el(
    "li",
    {},
    el("strong", {}, `${m.role}: `),
    m.preview,
    el("span", { className: "muted" }, similarity),
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

const STEP_COLUMNS = ["#", "Round", "Tool", "Args", "Output", "Duration", "Status"];

function showStep(index, { round, tool, args, output, duration = "", status, cell }) {
  const cells = [
    el("td", {}, String(index)),
    el("td", {}, String(round)),
    el("td", {}, tool),
    el("td", {}, json(args)),
    el("td", {}, output === undefined ? "" : json(output)),
    el("td", {}, duration),
    cell ?? el("td", { className: `status-${status}` }, status),
  ];
  // A narrow screen shows each row as a card, each cell under its column's name.
  cells.forEach((td, i) => (td.dataset.label = STEP_COLUMNS[i]));
  stepRow(index).replaceChildren(...cells);
}

function showStepStart(event) {
  const { index, round, tool, args } = event;
  showStep(index, { round, tool, args, status: "running" });
}

function showStepEnd({ index, round, result: r }) {
  showStep(index, {
    round,
    tool: r.tool,
    args: r.input,
    output: r.success ? r.output : { code: r.code, error: r.error },
    duration: `${Math.round(r.durationMs)} ms`,
    status: r.success ? "ok" : "failed",
  });
}

/** A call waiting for a person: Approve, and Deny with an optional reason. */
export function showPending(pending, decide) {
  const reason = el("input", {
    type: "text",
    size: 16,
    placeholder: "reason (optional)",
    ariaLabel: `Reason to deny ${pending.tool}`,
  });
  const approve = el("button", { type: "button", className: "approve" }, "Approve");
  const deny = el("button", { type: "button", className: "deny" }, "Deny");
  approve.addEventListener("click", () => decide(pending, true));
  deny.addEventListener("click", () => decide(pending, false, reason.value.trim() || undefined));
  const cell = el(
    "td",
    { className: "pending" },
    el("span", { className: "status-running" }, "needs approval"),
    el("div", { className: "decide" }, approve, deny, reason),
  );
  showStep(pending.step, { round: pending.round, tool: pending.tool, args: pending.args, cell });
}

/** Takes the decision buttons away (while a decision is being sent, or once the run ended). */
export function clearDecisions() {
  for (const cell of document.querySelectorAll("#steps td.pending .decide")) cell.remove();
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

/** What each event shows (the run's own bookkeeping is the caller's). */
export const show = {
  context: showContext,
  round_start: (e) => setStatus(`Round ${e.round} of at most ${e.maxRounds}…`),
  plan: showPlan,
  step_start: showStepStart,
  step_end: showStepEnd,
  score: showScore,
  summary: (e) => ($("summary").textContent = e.summaryMessage),
  result: (e) => showResult(e.data),
  run: (e) => ($("run-id").textContent = `Run ${e.runId}`),
};

/** Which planner and models the server uses (from GET /mcp-loop/health). */
export function showModels(health) {
  const offline = !health.chatModel;
  $("server-models").textContent = offline
    ? `This server has no model configured: planner ${health.planner}, embedder ${health.embedder} (offline).`
    : `This server plans with ${health.chatModel} (planner ${health.planner}, embedder ${health.embedder}).`;
  $("offline-note").hidden = !offline;
}
