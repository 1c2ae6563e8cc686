// hansa serve: the page. It only draws what the server sends (board layout, the position as this
// page's seat may see it, legal actions) and sends back the decision clicked. Every request to a
// game carries the token of the seat (or host/spectator link) it is made for; updates arrive as
// server-sent events. No framework, no build step.
"use strict";

const COLOURS = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#CC79A7"]; // Okabe-Ito: colour-blind safe
const TEXT_ON = ["#000", "#000", "#fff", "#000", "#000"];
const PRIVILEGE_NAMES = ["white", "orange", "pink", "black"];
const SVGNS = "http://www.w3.org/2000/svg";

const S = {
  catalogue: null, view: null, layout: null, rules: null, layoutGame: null,
  history: [], timer: null, viewBox: null, finalShown: false, sessionId: null,
  tokens: null, token: null, events: null, busy: 0, agentAsked: false, fetching: false, refetch: false,
  plays: [], sent: 0, shownSeq: 0,
};

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- requests
async function api(method, url, body, token = S.token) {
  S.busy += 1;
  const seq = ++S.sent;
  document.body.dataset.busy = "1";
  try {
    const options = { method, headers: {} };
    if (body !== undefined) {
      options.headers["content-type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    if (token && url.startsWith("/api/sessions/")) options.headers["x-hansa-token"] = token;
    const response = await fetch(url, options);
    const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
    if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
    hideError();
    if (data && typeof data === "object" && !Array.isArray(data)) Object.defineProperty(data, "seq", { value: seq });
    return data;
  } finally {
    S.busy -= 1;
    document.body.dataset.busy = S.busy > 0 ? "1" : "0";
  }
}

function showError(message) {
  $("error-text").textContent = String(message).replace(/^Error: /, "");
  $("error").classList.remove("hidden");
  document.body.dataset.error = "1";
}
function hideError() {
  $("error").classList.add("hidden");
  document.body.dataset.error = "0";
}

// ---------------------------------------------------------------- helpers
function el(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}
function h(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  if (text !== null) node.textContent = text;
  return node;
}
function colour(p) { return COLOURS[p % COLOURS.length]; }
function seatLabel(view, p) {
  const seat = view.seats[p];
  if (seat !== "human") return seat;
  if (view.mode === "replay") return "player";
  return mySeat(p) ? "you" : "human";
}
// whether this page plays seat p (a hot-seat page plays every human seat it created)
function mySeat(p) { return S.plays.includes(String(p)); }
function swatch(p, size = 18, kind = "t") {
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("width", size); svg.setAttribute("height", size);
  svg.setAttribute("viewBox", "0 0 20 20"); svg.classList.add("swatch");
  if (kind === "t") el("rect", { x: 1, y: 1, width: 18, height: 18, rx: 2, fill: colour(p), class: "piece" }, svg);
  else el("circle", { cx: 10, cy: 10, r: 9, fill: colour(p), class: "piece" }, svg);
  el("text", { x: 10, y: 10.5, "font-size": 13, fill: TEXT_ON[p % 5], class: "piece-text" }, svg, String(p));
  return svg;
}
function markerShort(key) {
  if (!key) return "";
  return key.replace(/^plus_/, "+").replace(/_trading_posts?/, " post").replace(/_tradesmen/, " 3")
    .replace(/_ability/, "").replace(/_actions?$/, " act").replace(/_/g, " ");
}
function routeKey(a, b) { return [a, b].sort().join("\u0000"); }

// ---------------------------------------------------------------- start page
async function loadCatalogue() {
  S.catalogue = await api("GET", "/api/games");
  const select = $("f-game");
  select.innerHTML = "";
  for (const g of S.catalogue.games) {
    const option = h("option", { value: g.name }, `${g.name}  (${g.source === "spec" ? "spec" : "built"})`);
    select.appendChild(option);
  }
  const preferred = S.catalogue.games.find((g) => g.name === "bigbox-hanseatic-3p");
  if (preferred) select.value = preferred.name;
  const problems = $("spec-problems");
  problems.innerHTML = "";
  if (S.catalogue.problems.length) {
    problems.appendChild(h("h2", {}, "Problems in the spec folder"));
    problems.appendChild(h("pre", {}, S.catalogue.problems.join("\n")));
  }
  gameChanged();
}

function gameChanged() {
  const g = S.catalogue.games.find((x) => x.name === $("f-game").value);
  if (!g) return;
  $("f-game-info").textContent = `rules ${g.rules} on board ${g.board}` + (g.source === "spec" ? `, compiled from ${S.catalogue.spec}/` : "");
  const players = $("f-players");
  const old = Number(players.value);
  players.innerHTML = "";
  for (const n of g.players) players.appendChild(h("option", { value: n }, String(n)));
  if (g.players.includes(old)) players.value = old;
  seatsChanged();
}

function seatsChanged() {
  const n = Number($("f-players").value);
  const box = $("f-seats");
  const previous = [...box.querySelectorAll("select")].map((s) => s.value);
  box.innerHTML = "";
  for (let p = 0; p < n; p++) {
    const label = h("label");
    const name = h("span");
    name.appendChild(swatch(p, 16));
    name.appendChild(document.createTextNode(` Player ${p}`));
    const select = h("select", { id: `f-seat-${p}` });
    for (const seat of S.catalogue.seats) select.appendChild(h("option", { value: seat }, seat));
    select.value = previous[p] || (p === 0 ? "human" : (S.catalogue.seats.includes("greedy") ? "greedy" : S.catalogue.seats[1]));
    label.appendChild(name); label.appendChild(select);
    box.appendChild(label);
  }
}

function formSeats() {
  return [...$("f-seats").querySelectorAll("select")].map((s) => s.value);
}

async function startGame(event) {
  event.preventDefault();
  try {
    const body = { game: $("f-game").value, players: Number($("f-players").value), seats: formSeats() };
    if ($("f-seed").value !== "") body.seed = Number($("f-seed").value);
    const view = await api("POST", "/api/sessions", body);
    await openSession(view);
  } catch (err) { showError(err.message); }
}

async function readFile(input) {
  const file = input.files[0];
  input.value = "";
  if (!file) return null;
  return { name: file.name, text: await file.text() };
}

async function openLog() {
  try {
    const file = await readFile($("f-log"));
    if (!file) return;
    await openSession(await api("POST", "/api/logs", file));
  } catch (err) { showError(err.message); }
}

async function openPosition() {
  try {
    const file = await readFile($("f-state"));
    if (!file) return;
    const body = { name: file.name, text: file.text };
    try {
      const players = JSON.parse(file.text).players;
      if (players === formSeats().length) body.seats = formSeats();
    } catch (_) { /* the server reports a malformed file */ }
    await openSession(await api("POST", "/api/positions", body));
  } catch (err) { showError(err.message); }
}

// ---------------------------------------------------------------- a session
// The tokens a page holds: every one of a game it created, or the one of the link it was opened
// with (`#join=SESSION.TOKEN`). `tokenFor` picks the one a view is asked with: the seat that
// decides now if the page holds it (hot seat), else the seat shown last, else the host's.
function tokensFrom(view, token) {
  if (view.tokens) return view.tokens;
  const tokens = { host: null, spectator: null, seats: {} };
  if (view.viewer.role === "seat") tokens.seats[String(view.viewer.seat)] = token;
  else tokens[view.viewer.role] = token;
  return tokens;
}

function tokenFor(view) {
  const T = S.tokens;
  if (!T) return null;
  if (view && view.current_player !== null && mySeat(view.current_player) && view.waiting_for === "human") {
    return T.seats[String(view.current_player)];
  }
  if (view && view.viewer.role === "seat" && mySeat(view.viewer.seat)) return T.seats[String(view.viewer.seat)];
  if (S.plays.length) return T.seats[S.plays[0]];
  return T.host || T.spectator;
}

async function openSession(view, token = null) {
  stopAgents();
  closeEvents();
  S.history = [];
  S.finalShown = false;
  S.sessionId = view.id;
  S.tokens = tokensFrom(view, token);
  // the seats this page plays: every human seat (hot seat), or, when their links are to be sent
  // to the other players, the first one only
  const seats = Object.keys(S.tokens.seats).sort((a, b) => a - b);
  S.plays = view.tokens && !$("f-hotseat").checked ? seats.slice(0, 1) : seats;
  S.token = tokenFor(view);
  S.view = null;
  if (S.layoutGame !== view.game) {
    const data = await api("GET", `/api/games/${encodeURIComponent(view.game)}/board`);
    S.layout = data.layout; S.rules = data; S.layoutGame = view.game;
    drawBoard();
  }
  $("start").classList.add("hidden");
  $("history").innerHTML = "";
  $("btn-scores").disabled = false;
  $("btn-links").disabled = false;
  renderLinks();
  show(view);
  openEvents(view.id);
}

async function joinFromLink() {
  const m = /^#join=([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (!m) return false;
  const [, sid, token] = m;
  const view = await api("GET", `/api/sessions/${sid}`, undefined, token);
  await openSession(view, token);
  return true;
}

function openEvents(id) {
  const q = S.token ? `?token=${encodeURIComponent(S.token)}` : "";
  const source = new EventSource(`/api/sessions/${id}/events${q}`);
  source.addEventListener("change", (event) => {
    if (!S.view || S.view.id !== id) return;
    const notice = JSON.parse(event.data);
    if (notice.version === S.view.version && notice.length === S.view.length) return;
    if (S.view.at === S.view.length) latest();
    else { S.view.length = notice.length; renderSlider(S.view); }
  });
  S.events = source;
}
function closeEvents() { if (S.events) { S.events.close(); S.events = null; } }

// Fetch the latest position; one request at a time, and one more if a change came meanwhile.
async function latest() {
  if (S.fetching) { S.refetch = true; return; }
  S.fetching = true;
  try {
    do {
      S.refetch = false;
      await fetchView(null, false);
    } while (S.refetch);
  } finally { S.fetching = false; }
}

async function fetchView(at, stop = true) {
  if (!S.view) return;
  if (stop) stopAgents();
  const id = S.view.id;
  try {
    const q = new URLSearchParams({ since: S.history.length });
    if (at !== null && at !== undefined) q.set("at", at);
    const view = await api("GET", `/api/sessions/${id}?${q}`);
    if (S.view && S.view.id === id) show(view);
  } catch (err) { showError(err.message); }
}

async function act(actionId) {
  hideMenu();
  if (!S.view) return;
  try {
    show(await api("POST", `/api/sessions/${S.view.id}/action`, { action: actionId, at: S.view.length, since: S.history.length }));
  } catch (err) { showError(err.message); }
}

// Ask the server's agents to play: all their decisions until a human's (with the chosen delay
// between two of them), or one. The answer comes when they are done (or after a while: then the
// update events bring the rest).
async function agentMove(untilHuman) {
  S.timer = null;
  if (!S.view || S.view.waiting_for !== "agent" || !mayDrive()) return;
  const id = S.view.id;
  const delay = Number($("agent-delay").value);
  S.agentAsked = true;
  try {
    const body = untilHuman ? { until_human: true, delay: Math.max(delay, 0) / 1000 } : { steps: 1 };
    body.since = S.history.length;
    const view = await api("POST", `/api/sessions/${id}/agent`, body);
    S.agentAsked = false;
    if (S.view && S.view.id === id) show(view);
  } catch (err) { S.agentAsked = false; showError(err.message); }
}

function mayDrive() { return !!S.tokens && (!!S.tokens.host || S.plays.length > 0); }

function stopAgents() {
  if (S.timer) { clearTimeout(S.timer); S.timer = null; }
}

function scheduleAgents() {
  stopAgents();
  const view = S.view;
  if (!view || view.waiting_for !== "agent" || !mayDrive() || S.agentAsked) return;
  if (view.agents && (view.agents.running || view.agents.error)) return;
  const delay = Number($("agent-delay").value);
  if (delay < 0) return; // step by step: the "agent step" button
  S.timer = setTimeout(() => agentMove(true), 0);
}

// ---------------------------------------------------------------- showing a view
function show(view) {
  if (view.seq !== undefined) { // an answer to a request sent before the one shown: stale
    if (S.view && S.view.id === view.id && view.seq < S.shownSeq) return;
    S.shownSeq = view.seq;
  }
  S.view = view;
  const wanted = tokenFor(view);
  if (wanted && wanted !== S.token) { // hot seat: show the deciding seat's view
    S.token = wanted;
    latest();
  }
  for (const entry of view.history) {
    if (entry.n === S.history.length + 1) { S.history.push(entry); appendHistory(entry); }
  }
  document.body.dataset.at = view.at;
  document.body.dataset.length = view.length;
  document.body.dataset.waiting = view.waiting_for || "none";
  document.body.dataset.terminal = view.terminal ? "1" : "0";
  document.body.dataset.viewer = view.viewer.role === "seat" ? `seat ${view.viewer.seat}` : view.viewer.role;
  const mode = view.mode === "replay" ? `log ${view.source}` : view.mode === "position" ? `position ${view.source}` : (view.seed !== null ? `seed ${view.seed}` : "seed hidden until the end");
  $("game-title").textContent = `${view.game} · ${view.players} players · ${mode}`;
  $("btn-log").classList.toggle("disabled", !view.can_download_log);
  $("btn-log").href = view.can_download_log ? `/api/sessions/${view.id}/log?token=${encodeURIComponent(S.token || "")}` : "#";
  drawPieces(view);
  drawTargets(view);
  renderStatus(view);
  renderDesks(view);
  renderLegal(view);
  renderSlider(view);
  markHistory(view.at);
  $("agent-step").disabled = view.waiting_for !== "agent" || !mayDrive();
  if (view.terminal && view.at === view.length && !S.finalShown) {
    S.finalShown = true;
    showScores(true);
  }
  scheduleAgents();
}

function renderLinks() {
  const list = $("links-list");
  list.innerHTML = "";
  if (!S.tokens || !S.view) return;
  const base = `${location.origin}${location.pathname}#join=${S.view.id}.`;
  const rows = [];
  for (const [p, token] of Object.entries(S.tokens.seats)) rows.push([`Player ${p}`, token, `link-seat-${p}`]);
  if (S.tokens.spectator) rows.push(["Spectator (public view)", S.tokens.spectator, "link-spectator"]);
  if (S.tokens.host) rows.push(["Host (public view, starts the agents)", S.tokens.host, "link-host"]);
  for (const [label, token, id] of rows) {
    const li = h("li");
    li.appendChild(h("span", { class: "link-label" }, label));
    li.appendChild(h("input", { id, class: "link", readonly: "", value: base + token }));
    list.appendChild(li);
  }
}

function renderStatus(view) {
  const box = $("status");
  box.innerHTML = "";
  box.classList.remove("your-turn");
  const live = view.at === view.length;
  if (view.terminal) {
    const w = view.scores.winners;
    const who = h("span", { class: "who" });
    who.style.background = w.length === 1 ? colour(w[0]) : "#ddd";
    who.appendChild(document.createTextNode(w.length === 1 ? `Player ${w[0]} wins` : `Shared: players ${w.join(", ")}`));
    box.appendChild(who);
    box.appendChild(h("span", { class: "what" }, `game over · ${w.map((p) => view.scores.totals[p]).join("/")} PP` + (live && view.end_trigger ? ` · end: ${view.end_trigger}` : "")));
    return;
  }
  const p = view.current_player;
  const who = h("span", { class: "who" });
  who.style.background = colour(p);
  who.style.color = TEXT_ON[p % 5];
  who.appendChild(document.createTextNode(`Player ${p} (${seatLabel(view, p)})`));
  box.appendChild(who);
  let what = view.decision.replace(/ of player \d+/, "");
  if (!live) what = `position after decision ${view.at} of ${view.length} · ${what}`;
  else if (view.your_decision) { what = `your decision: ${what}`; box.classList.add("your-turn"); }
  else if (view.waiting_for === "human") what = `player ${p} decides: ${what}`;
  else if (view.waiting_for === "agent") what = `${view.seats[p]} decides: ${what}`;
  box.appendChild(h("span", { class: "what" }, what));
}

function renderDesks(view) {
  const box = $("desks");
  box.innerHTML = "";
  const st = view.state;
  const abilities = S.rules.abilities;
  const board = [`cities completed ${st.completed_cities || 0}` + (S.rules.completed_cities ? ` / ${S.rules.completed_cities}` : "")];
  if (S.rules.end_track_pp) board.push(`game ends at ${S.rules.end_track_pp} track PP`);
  board.push(`markers in supply ${st.marker_supply_size !== undefined ? st.marker_supply_size : (st.marker_supply || []).length}`);
  if ((st.east_west || []).length) board.push(`East-West: ${st.east_west.map((p) => "P" + p).join(", ")}`);
  box.appendChild(h("div", { id: "board-info", class: "muted" }, board.join(" · ")));
  st.player_state.forEach((ps, p) => {
    const desk = h("div", { class: "desk" + (p === view.current_player ? " current" : ""), "data-player": p });
    desk.appendChild(swatch(p, 24));
    const lines = h("div", { class: "lines" });
    const head = h("div");
    head.appendChild(h("span", { class: "name" }, `Player ${p}`));
    head.appendChild(document.createTextNode(` · ${seatLabel(view, p)}` + (p === view.current_player ? " · deciding" : "")));
    lines.appendChild(head);
    lines.appendChild(h("div", {}, `supply ${ps.supply.traders}▪ ${ps.supply.merchants}● · stock ${ps.stock.traders}▪ ${ps.stock.merchants}● · track ${ps.track} PP`));
    const parts = abilities.map((a) => {
      const level = ps.abilities[a.name];
      let value = a.values[Math.min(level, a.values.length - 1)];
      if (a.name === "privilege") value = PRIVILEGE_NAMES[value] || value;
      if (a.name === "bank" && value >= 99) value = "all";
      const short = { privilege: "priv.", actions: "act." }[a.name] || a.name;
      return `${short} ${value}`;
    });
    lines.appendChild(h("div", { class: "abl" }, parts.join(" · ")));
    const own = st.own && view.viewer.seat === p ? st.own : null;
    if (own && own.mission_cities) {
      lines.appendChild(h("div", { class: "mission", id: "own-mission" }, `your mission card ${own.mission}: ${own.mission_cities.join(", ")}`));
    }
    const markers = ps.markers || { unused: [], used: [] };
    if (markers.unused.length || markers.used.length) {
      lines.appendChild(h("div", { class: "mk" }, `markers: ${markers.unused.map(markerShort).join(", ") || "none unused"}` + (markers.used.length ? ` (+${markers.used.length} used)` : "")));
    }
    desk.appendChild(lines);
    const pp = h("div", { class: "pp", title: "PP if the game ended now (final scoring A–F)" });
    pp.appendChild(h("b", {}, ppText(view.scores, p)));
    pp.appendChild(h("small", {}, "PP now"));
    desk.appendChild(pp);
    box.appendChild(desk);
  });
}

// a player's PP if the game ended now; "12 + ?" while another player's secret categories (mission
// points) are hidden
function ppText(scores, p) {
  if (scores.totals[p] !== null) return String(scores.totals[p]);
  return `${scores.known[p]} + ?`;
}

function renderLegal(view) {
  const list = $("legal-list");
  list.innerHTML = "";
  const live = view.at === view.length;
  if (view.terminal) { $("decision-title").textContent = "Game over"; list.appendChild(h("li", { class: "note" }, "The final scoring is under Scores.")); return; }
  if (!live) { $("decision-title").textContent = "Viewing an earlier position"; list.appendChild(h("li", { class: "note" }, "Press End (») to return to the latest position.")); return; }
  if (view.mode === "replay") { $("decision-title").textContent = "End of the log"; return; }
  const human = view.your_decision;
  $("decision-title").textContent = human ? `Your decision — ${view.legal.length} choices` : view.waiting_for === "human" ? `Player ${view.current_player} to decide` : `Agent ${view.seats[view.current_player]} to decide`;
  if (view.waiting_for === "human" && !human) {
    list.appendChild(h("li", { class: "note" }, "Waiting for that player's decision."));
    return;
  }
  if (!human) {
    list.appendChild(h("li", { class: "note" }, Number($("agent-delay").value) < 0 ? "Press “agent step” to let it decide." : "…"));
    return;
  }
  for (const a of view.legal) {
    const li = h("li");
    const button = h("button", { "data-action": a.id, title: `action ${a.id}` }, a.name);
    button.addEventListener("click", () => act(a.id));
    li.appendChild(button);
    list.appendChild(li);
  }
}

function renderSlider(view) {
  const slider = $("slider");
  slider.max = view.length;
  slider.value = view.at;
  $("step-label").textContent = `decision ${view.at} / ${view.length}` + (view.at === view.length ? " (latest)" : "");
}

function appendHistory(entry) {
  const li = h("li", { value: entry.n, "data-n": entry.n });
  const dot = h("span", { class: "dot" });
  dot.style.background = colour(entry.player);
  li.appendChild(dot);
  li.appendChild(document.createTextNode(`P${entry.player}: ${entry.name}`));
  li.addEventListener("click", () => fetchView(entry.n));
  $("history").appendChild(li);
}

function markHistory(at) {
  const list = $("history");
  const old = list.querySelector("li.now");
  if (old) old.classList.remove("now");
  const now = list.querySelector(`li[data-n="${at}"]`);
  if (now) {
    now.classList.add("now");
    const top = now.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - 20) list.scrollTop = top - list.clientHeight / 2;
  }
}

function showScores(final) {
  const view = S.view;
  if (!view) return;
  const keys = S.rules.score_keys, kinds = S.rules.score_kinds;
  const table = $("scores-table");
  table.innerHTML = "";
  const head = h("thead"); const tr = h("tr");
  tr.appendChild(h("th", {}, "player"));
  keys.forEach((k, i) => { const th = h("th", {}, k); th.appendChild(h("small", {}, kinds[i].replace(/_/g, " "))); tr.appendChild(th); });
  tr.appendChild(h("th", {}, "total"));
  head.appendChild(tr); table.appendChild(head);
  const body = h("tbody");
  const winners = view.scores.winners || [];
  view.scores.breakdown.forEach((b, p) => {
    const row = h("tr", { class: winners.includes(p) ? "winner" : "" });
    const cell = h("td");
    cell.appendChild(swatch(p, 14));
    cell.appendChild(document.createTextNode(` Player ${p} (${seatLabel(view, p)})` + (winners.includes(p) ? (view.terminal ? " — winner" : " — leading") : "")));
    row.appendChild(cell);
    for (const k of keys) row.appendChild(h("td", {}, b[k] === null ? "?" : String(b[k])));
    row.appendChild(h("td", {}, ppText(view.scores, p)));
    body.appendChild(row);
  });
  table.appendChild(body);
  $("scores-title").textContent = view.terminal ? "Final scoring" : `Scoring as if the game ended now (decision ${view.at})`;
  const hidden = view.scores.hidden.length ? ` Other players' ${view.scores.hidden.join(", ")} points are secret until the end (so is the leader).` : "";
  $("scores-note").textContent = view.terminal && view.end_trigger ? `End: ${view.end_trigger}; ${view.turns} turns, ${view.length} decisions.` : "Winners after the rule set's tie-break chain." + hidden;
  $("scores").classList.remove("hidden");
}

// ---------------------------------------------------------------- the board
function drawBoard() {
  const svg = $("board");
  svg.innerHTML = "";
  const L = S.layout;
  S.viewBox = L.view_box.slice();
  applyViewBox();
  const world = el("g", { id: "world" }, svg);
  el("rect", { x: 0, y: 0, width: L.frame[0], height: L.frame[1], class: "frame" }, world);
  const routes = el("g", { id: "routes" }, world);
  const size = L.space_size;
  S.points = {}; S.routes = {}; S.cities = {}; S.spaces = {}; S.routeByKey = {};
  for (const r of L.routes) {
    S.routes[r.index] = r;
    S.routeByKey[routeKey(r.cities[0], r.cities[1])] = r;
    const g = el("g", { class: "route", "data-route": r.index }, routes);
    const pts = r.path.map((p) => p.join(",")).join(" ");
    el("polyline", { points: pts, class: "route-line" + (r.sea ? " sea" : "") }, g);
    for (const pt of r.points) {
      S.points[pt.id] = { ...pt, size: r.size, route: r.index };
      const s = r.size;
      if (pt.merchant_only) el("circle", { cx: pt.at[0], cy: pt.at[1], r: s / 2, class: "point-ship" }, g);
      else el("rect", { x: pt.at[0] - s / 2, y: pt.at[1] - s / 2, width: s, height: s, class: "point-house", transform: `rotate(${pt.angle} ${pt.at[0]} ${pt.at[1]})` }, g);
    }
    for (const label of r.labels) {
      const text = label.text.replace(/\n/g, " ");
      const w = text.length * 3.6 + 6;
      el("rect", { x: label.at[0] - w / 2, y: label.at[1] - 5.5, width: w, height: 11, rx: 2, class: "label-box" }, g);
      el("text", { x: label.at[0], y: label.at[1], "font-size": 7, class: "small" }, g, text);
    }
  }
  const cities = el("g", { id: "cities" }, world);
  for (const c of L.cities) {
    S.cities[c.index] = c;
    const g = el("g", { class: "city", "data-city": c.index }, cities);
    el("rect", { x: c.box[0], y: c.box[1], width: c.box[2], height: c.box[3], rx: 3, class: "city-box" + (c.hanseatic ? "" : " green") }, g);
    for (const sp of c.spaces) {
      S.spaces[sp.id] = { ...sp, city: c.index };
      const fill = L.privilege_colours[sp.privilege] || "#fff";
      if (sp.shape === "round") el("circle", { cx: sp.at[0], cy: sp.at[1], r: size / 2, fill, class: "space" }, g);
      else el("rect", { x: sp.at[0] - size / 2, y: sp.at[1] - size / 2, width: size, height: size, fill, class: "space" }, g);
      if (sp.coin) {
        el("circle", { cx: sp.at[0] + size / 2, cy: sp.at[1] - size / 2, r: 4, fill: "#d4a017", stroke: "#7a5c00" }, g);
        el("text", { x: sp.at[0] + size / 2, y: sp.at[1] - size / 2, "font-size": 6, class: "small" }, g, String(sp.coin));
      }
    }
    el("text", { x: c.name_at[0], y: c.name_at[1] + 1, "font-size": 9, class: "city-name" }, g, c.name);
    for (const [text, y] of c.details) el("text", { x: c.name_at[0], y: y + 3, "font-size": 6, class: "small" }, g, text);
    for (const b of c.badges) {
      el("rect", { x: b.box[0], y: b.box[1] - 2, width: b.box[2], height: b.box[3] + 2, rx: 2, class: "badge-box " + b.kind }, g);
      el("text", { x: b.box[0] + b.box[2] / 2, y: b.box[1] + b.box[3] / 2 - 1, "font-size": 6.5, class: "badge-text" }, g, b.text);
    }
  }
  if (L.special_prestige) {
    const sp = L.special_prestige;
    const g = el("g", { id: "special" }, world);
    for (const s of sp.spaces) {
      el("rect", { x: s.at[0] - sp.size / 2, y: s.at[1] - sp.size / 2, width: sp.size, height: sp.size, fill: "#d4a017", stroke: "#222", "stroke-width": 1 }, g);
      el("text", { x: s.at[0], y: s.at[1], "font-size": 6.5, class: "small" }, g, String(s.points));
    }
  }
  el("g", { id: "markers" }, world);
  el("g", { id: "pieces" }, world);
  el("g", { id: "targets" }, world);
}

function applyViewBox() {
  $("board").setAttribute("viewBox", S.viewBox.join(" "));
}

function piece(parent, code, x, y, s, extra = {}) {
  const p = Number(code.slice(1));
  const g = el("g", { class: "piece-g", "data-piece": code, ...extra }, parent);
  if (code[0] === "t") el("rect", { x: x - s / 2, y: y - s / 2, width: s, height: s, rx: s * 0.12, fill: colour(p), class: "piece" }, g);
  else el("circle", { cx: x, cy: y, r: s / 2, fill: colour(p), class: "piece" }, g);
  el("text", { x, y: y + s * 0.05, "font-size": s * 0.82, fill: TEXT_ON[p % 5], class: "piece-text" }, g, String(p));
  return g;
}

// Beside the middle of a route, on the side away from its tavern or bonus label.
function markerSpot(route) {
  const path = route.path;
  const k = Math.floor(path.length / 2);
  const [x, y] = path[k];
  const a = path[Math.max(k - 1, 0)], b = path[Math.min(k + 1, path.length - 1)];
  const len = Math.hypot(b[0] - a[0], b[1] - a[1]) || 1;
  const nx = -(b[1] - a[1]) / len, ny = (b[0] - a[0]) / len;
  const off = route.size * 0.75 + 7;
  const sides = [1, -1].map((s) => [x + s * nx * off, y + s * ny * off]);
  const away = (p) => Math.min(...route.labels.map((l) => Math.hypot(l.at[0] - p[0], l.at[1] - p[1])), 1e9);
  return away(sides[0]) >= away(sides[1]) ? sides[0] : sides[1];
}

function drawPieces(view) {
  const layer = $("pieces");
  const markers = $("markers");
  layer.innerHTML = ""; markers.innerHTML = "";
  const st = view.state;
  for (const r of st.routes || []) {
    const route = S.routeByKey[routeKey(r.cities[0], r.cities[1])];
    if (!route) continue;
    const points = route.cities[0] === r.cities[0] ? route.points : route.points.slice().reverse();
    r.points.forEach((code, j) => {
      if (code && points[j]) piece(layer, code, points[j].at[0], points[j].at[1], route.size * 1.45);
    });
    if (r.marker) {
      const [x, y] = markerSpot(route);
      const text = markerShort(r.marker);
      const w = text.length * 4.2 + 8;
      const g = el("g", { class: "marker", "data-marker": r.marker }, markers);
      el("title", {}, g, `bonus marker: ${r.marker}`);
      el("rect", { x: x - w / 2, y: y - 5.5, width: w, height: 11, rx: 5, class: "marker-box" }, g);
      el("text", { x, y: y + 0.5, "font-size": 7.5, class: "marker-text" }, g, text);
    }
  }
  const size = S.layout.space_size;
  const byName = {};
  for (const c of S.layout.cities) byName[c.name] = c;
  for (const c of st.cities || []) {
    const city = byName[c.name];
    if (!city) continue;
    c.posts.forEach((code, j) => {
      if (code && city.spaces[j]) piece(layer, code, city.spaces[j].at[0], city.spaces[j].at[1], size * 0.9);
    });
    (c.additional_posts || []).forEach((code, k) => {
      const first = city.spaces[0] ? city.spaces[0].at : city.centre;
      piece(layer, code, first[0] - (k + 1) * (size + 3), first[1], size * 0.9);
    });
  }
  const sp = S.layout.special_prestige;
  if (sp && st.special_prestige) {
    st.special_prestige.forEach((code, i) => {
      if (code && sp.spaces[i]) piece(layer, code, sp.spaces[i].at[0], sp.spaces[i].at[1], sp.size * 0.9);
    });
  }
  // the last decision, outlined (its point, route or city)
  const last = view.at > 0 ? S.history[view.at - 1] : null;
  if (last) outlineLast(last);
}

function outlineLast(entry) {
  const target = entry.target;
  if (!target) return;
  const shape = targetShape(target);
  if (shape) { shape.setAttribute("class", "last-move"); $("pieces").appendChild(shape); }
}

function targetShape(target) {
  if (target.type === "point") {
    const pt = S.points[target.index];
    return pt ? el("circle", { cx: pt.at[0], cy: pt.at[1], r: pt.size * 0.95 }) : null;
  }
  if (target.type === "route") {
    const r = S.routes[target.index];
    return r ? el("polyline", { points: r.path.map((p) => p.join(",")).join(" ") }) : null;
  }
  if (target.type === "city") {
    const c = S.cities[target.index];
    return c ? el("rect", { x: c.box[0] - 3, y: c.box[1] - 3, width: c.box[2] + 6, height: c.box[3] + 6, rx: 4 }) : null;
  }
  if (target.type === "space") {
    const sp = S.spaces[target.index];
    const s = S.layout.space_size;
    return sp ? el("rect", { x: sp.at[0] - s * 0.7, y: sp.at[1] - s * 0.7, width: s * 1.4, height: s * 1.4, rx: 3 }) : null;
  }
  if (target.type === "special" && S.layout.special_prestige) {
    const sp = S.layout.special_prestige;
    const s = sp.spaces[target.index];
    return s ? el("rect", { x: s.at[0] - sp.size * 0.75, y: s.at[1] - sp.size * 0.75, width: sp.size * 1.5, height: sp.size * 1.5, rx: 3 }) : null;
  }
  return null;
}

function drawTargets(view) {
  const layer = $("targets");
  layer.innerHTML = "";
  if (!view.your_decision) return;
  const groups = new Map();
  for (const a of view.legal) {
    if (!a.target || a.target.type === "ability") continue;
    const key = `${a.target.type}:${a.target.index}`;
    if (!groups.has(key)) groups.set(key, { target: a.target, actions: [] });
    groups.get(key).actions.push(a);
  }
  for (const [key, group] of groups) {
    const g = el("g", { class: "legal target", "data-target": key, "data-actions": group.actions.map((a) => a.id).join(",") }, layer);
    el("title", {}, g, group.actions.map((a) => a.name).join("\n"));
    const hit = targetShape(group.target);
    if (!hit) continue;
    const ring = hit.cloneNode();
    if (group.target.type === "route") {
      hit.setAttribute("class", "route-under");
      ring.setAttribute("class", "legal-ring");
      ring.setAttribute("style", "stroke-width:6;opacity:.6");
    } else {
      hit.setAttribute("class", "hit");
      ring.setAttribute("class", "legal-ring");
    }
    g.appendChild(hit); g.appendChild(ring);
    g.addEventListener("click", (event) => {
      event.stopPropagation();
      if (group.actions.length === 1) act(group.actions[0].id);
      else showMenu(event, group.actions);
    });
  }
}

function showMenu(event, actions) {
  const menu = $("menu");
  menu.innerHTML = "";
  for (const a of actions) {
    const b = h("button", { "data-action": a.id }, a.name);
    b.addEventListener("click", (e) => { e.stopPropagation(); act(a.id); });
    menu.appendChild(b);
  }
  const area = $("board-area").getBoundingClientRect();
  menu.style.left = `${Math.min(event.clientX - area.left + 8, area.width - 260)}px`;
  menu.style.top = `${Math.min(event.clientY - area.top + 8, area.height - 40 * actions.length - 10)}px`;
  menu.classList.remove("hidden");
}
function hideMenu() { $("menu").classList.add("hidden"); }

// ---------------------------------------------------------------- zoom and pan
function zoom(factor, cx = 0.5, cy = 0.5) {
  if (!S.viewBox) return;
  const [x, y, w, hgt] = S.viewBox;
  const nw = Math.min(Math.max(w * factor, S.layout.view_box[2] / 8), S.layout.view_box[2] * 1.5);
  const nh = hgt * nw / w;
  S.viewBox = [x + (w - nw) * cx, y + (hgt - nh) * cy, nw, nh];
  applyViewBox();
}

function setupBoardControls() {
  const svg = $("board");
  svg.addEventListener("wheel", (event) => {
    event.preventDefault();
    const rect = svg.getBoundingClientRect();
    zoom(event.deltaY > 0 ? 1.15 : 1 / 1.15, (event.clientX - rect.left) / rect.width, (event.clientY - rect.top) / rect.height);
  }, { passive: false });
  let drag = null;
  svg.addEventListener("mousedown", (event) => { drag = { x: event.clientX, y: event.clientY, box: S.viewBox && S.viewBox.slice() }; });
  window.addEventListener("mousemove", (event) => {
    if (!drag || !drag.box) return;
    const rect = svg.getBoundingClientRect();
    const scale = Math.max(drag.box[2] / rect.width, drag.box[3] / rect.height);
    S.viewBox = [drag.box[0] - (event.clientX - drag.x) * scale, drag.box[1] - (event.clientY - drag.y) * scale, drag.box[2], drag.box[3]];
    applyViewBox();
  });
  window.addEventListener("mouseup", () => { drag = null; });
  svg.addEventListener("click", () => hideMenu());
  $("zoom-in").addEventListener("click", () => zoom(1 / 1.3));
  $("zoom-out").addEventListener("click", () => zoom(1.3));
  $("zoom-fit").addEventListener("click", () => { if (S.layout) { S.viewBox = S.layout.view_box.slice(); applyViewBox(); } });
}

// ---------------------------------------------------------------- wiring
function step(delta) {
  if (!S.view) return;
  const at = Math.min(Math.max(S.view.at + delta, 0), S.view.length);
  if (at !== S.view.at) fetchView(at === S.view.length ? null : at);
}

function setup() {
  $("new-form").addEventListener("submit", startGame);
  $("f-game").addEventListener("change", gameChanged);
  $("f-players").addEventListener("change", seatsChanged);
  $("f-log").addEventListener("change", openLog);
  $("f-state").addEventListener("change", openPosition);
  $("btn-new").addEventListener("click", () => $("start").classList.remove("hidden"));
  $("start-close").addEventListener("click", () => { if (S.view) $("start").classList.add("hidden"); });
  $("btn-scores").addEventListener("click", () => showScores(false));
  $("btn-links").addEventListener("click", () => { renderLinks(); $("links").classList.remove("hidden"); });
  $("links-close").addEventListener("click", () => $("links").classList.add("hidden"));
  $("scores-close").addEventListener("click", () => $("scores").classList.add("hidden"));
  $("error-close").addEventListener("click", hideError);
  $("step-first").addEventListener("click", () => S.view && fetchView(0));
  $("step-prev").addEventListener("click", () => step(-1));
  $("step-next").addEventListener("click", () => step(1));
  $("step-last").addEventListener("click", () => S.view && fetchView(null));
  $("slider").addEventListener("change", (event) => fetchView(Number(event.target.value)));
  $("agent-step").addEventListener("click", () => agentMove(false));
  $("agent-delay").addEventListener("change", (event) => {
    event.target.blur(); // the arrow keys step through the game again
    if (S.view) {
      renderLegal(S.view);
      const running = S.view.agents && S.view.agents.running;
      if (running && mayDrive()) { // a new pace: ask again (it replaces the running request)
        if (Number(event.target.value) < 0) api("POST", `/api/sessions/${S.view.id}/agent`, { stop: true }).then(show).catch((err) => showError(err.message));
        else agentMove(true);
      } else scheduleAgents();
    }
  });
  document.addEventListener("keydown", (event) => {
    if (["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName) && event.target.type !== "range") return;
    if (event.key === "ArrowLeft") { step(-1); event.preventDefault(); }
    else if (event.key === "ArrowRight") { step(1); event.preventDefault(); }
    else if (event.key === "Home") { if (S.view) fetchView(0); event.preventDefault(); }
    else if (event.key === "End") { if (S.view) fetchView(null); event.preventDefault(); }
    else if (event.key === "Escape") { hideMenu(); $("scores").classList.add("hidden"); $("links").classList.add("hidden"); }
  });
  setupBoardControls();
  loadCatalogue().then(joinFromLink).catch((err) => showError(err.message));
  window.addEventListener("hashchange", () => joinFromLink().catch((err) => showError(err.message)));
}

setup();
