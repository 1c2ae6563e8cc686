// hansa serve: the page. It only draws what the server sends (board layout, the position as this
// page's seat may see it, legal actions) and sends back the decision clicked. Every request to a
// game carries the token of the seat (or host/spectator link) it is made for; updates arrive as
// server-sent events. No framework, no build step.
"use strict";

// Player colours kept apart from the Privilege colours (white, orange, pink, black): blue, green,
// yellow, purple, red; every piece also carries its player's number (a cue besides colour).
const COLOURS = ["#1f5fbf", "#2e9e44", "#f2d22e", "#7b3fa0", "#c62828"];
const COLOUR_NAMES = ["blue", "green", "yellow", "purple", "red"];
const TEXT_ON = ["#fff", "#fff", "#000", "#fff", "#fff"];
const PRIVILEGE_NAMES = ["white", "orange", "pink", "black"];
const SVGNS = "http://www.w3.org/2000/svg";

const S = {
  catalogue: null, view: null, layout: null, rules: null, layoutGame: null,
  history: [], timer: null, viewBox: null, finalShown: false, sessionId: null,
  tokens: null, token: null, events: null, busy: 0, agentAsked: false, fetching: false, refetch: false,
  plays: [], sent: 0, shownSeq: 0, selectedKind: null, confirming: null,
  offline: false, lostTimer: null, backTimer: null, probeTimer: null,
  help: null, signalled: null, sinceDismissed: null, keepAllTokens: true,
  sound: localStorage.getItem("hansa-sound") === "on", notify: false,
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
    let response;
    try {
      response = await fetch(url, options);
    } catch (err) { // no answer at all: the server (or the network) is gone
      connectionLost();
      throw new Error("the server cannot be reached: the connection is lost (it retries by itself)");
    }
    connectionBack();
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

// ---------------------------------------------------------------- connection state
// The page says when it lost the server (its update stream failed and did not come back within
// LOST_AFTER ms, or a request got no answer) and when it is back (the stream reopened or a request
// was answered). A click is sent at once or never: one that gets no answer is dropped (the banner
// says so), never kept to be sent later; one the server answers brings the connection back.
const LOST_AFTER = 1500; // the stream's own reconnection (retry: 1000) is not a lost connection
const BACK_SHOWN = 4000;
function connectionBanner(text, state) {
  const banner = $("connection");
  banner.textContent = text;
  banner.className = state === "ok" ? "hidden" : state;
  document.body.dataset.connection = state;
}
function connectionLost() {
  clearTimeout(S.backTimer);
  if (S.offline) return;
  S.offline = true;
  connectionBanner("Connection to the server lost — trying again… (moves are not sent until it is back)", "lost");
}
function connectionBack() {
  clearTimeout(S.lostTimer);
  S.lostTimer = null;
  if (!S.offline) return;
  S.offline = false;
  connectionBanner("Connected to the server again", "back");
  S.backTimer = setTimeout(() => { if (!S.offline) connectionBanner("", "ok"); }, BACK_SHOWN);
  if (S.view) latest(); // what happened meanwhile
}
function refuseOffline() {
  if (!S.offline) return false;
  connectionBanner("Not connected: that move was not sent — wait until the server is back", "lost");
  return true;
}
// The stream failed for good (an answer that is not a stream, e.g. a proxy's 502): ask the server
// every 2 s and reopen the stream once it answers.
function probeServer(id) {
  clearTimeout(S.probeTimer);
  S.probeTimer = setTimeout(async () => {
    if (!S.view || S.view.id !== id || S.events) return;
    try {
      const response = await fetch("/api/games");
      if (!response.ok) throw new Error("not yet");
      openEvents(id);
    } catch (err) { probeServer(id); }
  }, 2000);
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
// A player as the page names them: the name their link chose, else "Player N".
function playerName(view, p) {
  const names = (view && view.names) || {};
  return names[String(p)] || `Player ${p}`;
}
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
function routeKey(a, b) { return [a, b].sort().join("\u0000"); }
// A spec name in words: "create_route" → "create route", "plus_3_actions" → "+3 actions",
// "track_pp" → "track PP".
function words(name) {
  if (name === null || name === undefined) return "";
  return String(name).replace(/^plus_(\d)/, "+$1").replace(/_/g, " ").replace(/\bpp\b/gi, "PP");
}
// An action's name as shown: the engine's words, with the spec's snake_case names in it (bonus
// markers, permanent markers) in words too.
function say(name) {
  return String(name).replace(/\b[a-z]+(?:_[a-z0-9]+)+\b/g, (m) => words(m));
}
function capital(text) { return text ? text[0].toUpperCase() + text.slice(1) : text; }
function markerName(key) {
  const label = S.rules && S.rules.markers && S.rules.markers[key];
  return words(label || key);
}
function colourName(p) { return COLOUR_NAMES[p % COLOUR_NAMES.length]; }
// Why the game ended (or will): the trigger names of the rule set in words.
function endWords(trigger) {
  if (!trigger) return "";
  return trigger.split("+").map((t) => {
    if (t === "track_pp" && S.rules.end_track_pp) return `a score marker reached ${S.rules.end_track_pp} PP`;
    if (t === "completed_cities" && S.rules.completed_cities) return `${S.rules.completed_cities} cities completed`;
    return words(t);
  }).join(" and ");
}
// What is being decided, in words: the top frame of the stack, or the turn.
function decisionWords(view) {
  const st = view.state;
  const stack = st.stack || [];
  if (stack.length) {
    const top = stack[stack.length - 1];
    return capital(words(top.frame)) + (top.player !== view.current_player ? ` (${playerName(view, top.player)})` : "");
  }
  const left = st.turn ? st.turn.actions_left : null;
  return left === null ? "Turn" : `Turn — ${left} action${left === 1 ? "" : "s"} left`;
}

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
  // a creating page that sends the others their links keeps only its own seat's token once the
  // links were shown (the setting "this screen plays every human seat" keeps all of them)
  S.keepAllTokens = !(view.tokens && !$("f-hotseat").checked && seats.length > 1);
  S.token = tokenFor(view);
  S.view = null;
  if (S.layoutGame !== view.game) {
    const data = await api("GET", `/api/games/${encodeURIComponent(view.game)}/board`);
    S.layout = data.layout; S.rules = data; S.layoutGame = view.game;
    S.help = null;
    api("GET", `/api/games/${encodeURIComponent(view.game)}/rules`).then((help) => {
      if (S.layoutGame === view.game) { S.help = help; if (S.view) renderDesks(S.view); }
    }).catch((err) => showError(err.message));
    fitLayout();
    drawBoard();
    sizeCityNames();
  }
  $("start").classList.add("hidden");
  $("history").innerHTML = "";
  $("btn-scores").disabled = false;
  $("btn-links").disabled = false;
  renderLinks();
  $("btn-rules").disabled = false;
  show(view);
  openEvents(view.id);
  if (!S.keepAllTokens) { // show the links once, then forget the others' tokens
    renderLinks();
    $("links-once").classList.remove("hidden");
    $("links").classList.remove("hidden");
  }
}

// The links were shown: keep the host's, the spectator's and this page's own seat's tokens only.
function forgetOtherSeats() {
  if (S.keepAllTokens || !S.tokens) return;
  const own = S.plays[0];
  S.tokens.seats = own !== undefined ? { [own]: S.tokens.seats[own] } : {};
  S.keepAllTokens = true;
  $("links-once").classList.add("hidden");
  renderLinks();
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
  source.addEventListener("open", () => connectionBack());
  source.addEventListener("error", () => {
    if (source.readyState === EventSource.CLOSED) { // the browser gave up: ask by ourselves
      if (S.events === source) S.events = null;
      connectionLost();
      probeServer(id);
      return;
    }
    if (!S.lostTimer && !S.offline) {
      S.lostTimer = setTimeout(() => {
        S.lostTimer = null;
        if (S.events === source && source.readyState !== EventSource.OPEN) connectionLost();
      }, LOST_AFTER);
    }
  });
  source.addEventListener("change", (event) => {
    if (!S.view || S.view.id !== id) return;
    const notice = JSON.parse(event.data);
    if (notice.version === S.view.version && notice.length === S.view.length) return;
    if (notice.length < S.history.length) { // taken back: ask for the history from there
      S.history.length = notice.length;
      for (const li of [...$("history").querySelectorAll("li")]) if (Number(li.dataset.n) > notice.length) li.remove();
      if (S.view.at > notice.length) { S.view.at = notice.length; S.view.length = notice.length; }
    }
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
  } catch (err) { if (!S.offline) showError(err.message); } // offline: the banner says it
}

async function act(actionId) {
  hideMenu();
  if (!S.view) return;
  try {
    show(await api("POST", `/api/sessions/${S.view.id}/action`, { action: actionId, at: S.view.length, since: S.history.length }));
  } catch (err) { if (!refuseOffline()) showError(err.message); }
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
  } catch (err) { S.agentAsked = false; if (!S.offline) showError(err.message); }
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
  const previous = S.view;
  S.view = view;
  const wanted = tokenFor(view);
  if (wanted && wanted !== S.token) { // hot seat: show the deciding seat's view
    S.token = wanted;
    latest();
  }
  if (view.length < S.history.length) { // a decision was taken back
    S.history.length = view.length;
    for (const li of [...$("history").querySelectorAll("li")]) if (Number(li.dataset.n) > view.length) li.remove();
  }
  for (const entry of view.history) {
    if (entry.n === S.history.length + 1) { S.history.push(entry); appendHistory(entry); }
  }
  if (!previous || previous.length !== view.length || previous.id !== view.id || !view.your_decision) S.selectedKind = null;
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
  renderTurnSignal(view);
  renderStatus(view);
  renderDesks(view);
  renderLegal(view); // chooses the kind a one-kind decision shows at once …
  drawTargets(view); // … so its targets are highlighted the first time
  renderSince(view);
  renderTalk(view);
  renderSlider(view);
  markHistory(view.at);
  $("agent-step").disabled = view.waiting_for !== "agent" || !mayDrive();
  if (view.terminal && view.at === view.length && !S.finalShown) {
    S.finalShown = true;
    showScores(true);
  }
  scheduleAgents();
}

// The tab's title and icon say when this page's seat must decide (also a displaced player's
// placements), so a player sees it from another tab.
const TITLE = "hansa serve";
function turnSignal(view) {
  if (!view || !view.your_decision || view.at !== view.length) return null;
  const stack = (view.state && view.state.stack) || [];
  const top = stack.length ? stack[stack.length - 1] : null;
  return top && top.frame === "displaced" ? "displaced" : "turn";
}
function renderTurnSignal(view) {
  const signal = turnSignal(view);
  const title = signal === "displaced" ? "● Displaced: your move — hansa" : signal ? "● Your turn — hansa" : TITLE;
  if (document.title !== title) document.title = title;
  const icon = signal ? "/static/favicon-turn.svg" : "/static/favicon.svg";
  const link = $("favicon");
  if (link && link.getAttribute("href") !== icon) link.setAttribute("href", icon);
  document.body.dataset.turn = signal || "none";
  const key = signal ? `${view.id}:${view.length}` : null;
  if (signal && S.signalled !== key) announceTurn(view, signal);
  S.signalled = key;
}

function renderLinks() {
  const list = $("links-list");
  list.innerHTML = "";
  if (!S.tokens || !S.view) return;
  const base = `${location.origin}${location.pathname}#join=${S.view.id}.`;
  const rows = [];
  for (const [p, token] of Object.entries(S.tokens.seats)) rows.push([playerName(S.view, p), token, `link-seat-${p}`]);
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
    who.style.color = w.length === 1 ? TEXT_ON[w[0] % 5] : "#111";
    who.appendChild(document.createTextNode(w.length === 1 ? `${playerName(view, w[0])} wins` : `Shared: ${w.map((x) => playerName(view, x)).join(", ")}`));
    box.appendChild(who);
    box.appendChild(h("span", { class: "what" }, `game over · ${w.map((p) => view.scores.totals[p]).join("/")} PP` + (live && view.end_trigger ? ` · ${endWords(view.end_trigger)}` : "")));
    return;
  }
  const p = view.current_player;
  const who = h("span", { class: "who" });
  who.style.background = colour(p);
  who.style.color = TEXT_ON[p % 5];
  who.appendChild(document.createTextNode(`${playerName(view, p)} (${seatLabel(view, p)})`));
  box.appendChild(who);
  let what = decisionWords(view);
  if (!live) what = `position after decision ${view.at} of ${view.length} · ${what}`;
  else if (view.your_decision) { what = `your decision: ${what}`; box.classList.add("your-turn"); }
  else if (view.waiting_for === "human") what = `${playerName(view, p)} decides: ${what}`;
  else if (view.waiting_for === "agent") what = `${view.seats[p]} decides: ${what}`;
  box.appendChild(h("span", { class: "what" }, what));
}

// A small SVG of pieces: `n` traders (squares) or merchants (circles) of player p.
function pieceIcon(p, kind, size = 14, covered = false) {
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("width", size); svg.setAttribute("height", size);
  svg.setAttribute("viewBox", "0 0 20 20"); svg.classList.add("pc");
  const attrs = { fill: colour(p), class: "piece" };
  if (kind === "t") el("rect", { x: 2, y: 2, width: 16, height: 16, rx: 2, ...attrs }, svg);
  else el("circle", { cx: 10, cy: 10, r: 8, ...attrs }, svg);
  el("text", { x: 10, y: 10.5, "font-size": 12, fill: TEXT_ON[p % 5], class: "piece-text" }, svg, String(p));
  if (covered) svg.classList.add("covering");
  return svg;
}
function countOf(p, kind, n, what) {
  const span = h("span", { class: "count", title: `${n} ${kind === "t" ? "trader" : "merchant"}${n === 1 ? "" : "s"} ${what}` });
  span.appendChild(pieceIcon(p, kind, 15));
  span.appendChild(document.createTextNode(`×${n}`));
  return span;
}

function abilityValue(a, i) {
  const v = a.values[i];
  if (a.name === "privilege") return PRIVILEGE_NAMES[v] || String(v);
  if (a.name === "bank" && v >= 99) return "all";
  return String(v);
}

// The five (or however many the rules have) ability tracks of a desk: every space of a track,
// uncovered ones showing their value, covered ones the piece still lying on them.
function abilityTracks(p, ps, develop) {
  const box = h("div", { class: "tracks" });
  S.rules.abilities.forEach((a, i) => {
    const level = ps.abilities[a.name];
    const row = h("div", { class: "track-row", "data-ability": a.name });
    const name = helpful(h("span", { class: "track-name" }, words(a.name)), words(a.name), helpOf("abilities", a.name));
    row.appendChild(name);
    const cells = h("span", { class: "cells" });
    a.values.forEach((_, k) => {
      const cell = h("span", { class: "cell" + (k <= level ? " open" : " covered") + (k === level ? " now" : "") });
      if (k <= level) {
        const text = abilityValue(a, k);
        if (a.name === "privilege") {
          cell.classList.add("priv");
          const fill = (S.layout.privilege_colours || {})[text] || "#fff";
          cell.style.background = fill;
          cell.style.color = text === "black" ? "#fff" : "#111";
          cell.textContent = text[0].toUpperCase(); // a letter besides the colour
          cell.title = `privilege ${text}`;
        } else cell.textContent = text;
      } else {
        cell.title = `${abilityValue(a, k)} — covered`;
        cell.appendChild(pieceIcon(p, a.piece, 15, true));
      }
      cells.appendChild(cell);
    });
    row.appendChild(cells);
    if (level >= a.values.length - 1 && a.full_pp) row.appendChild(h("span", { class: "full" }, `full +${a.full_pp}`));
    const act = develop && develop.get(i);
    if (act) {
      row.classList.add("developable");
      row.title = act.name;
      row.addEventListener("click", () => choose(act));
    }
    box.appendChild(row);
  });
  return box;
}

// The score track: a space per PP up to the game's end, every player's marker on it.
function scoreTrack(view) {
  const st = view.state;
  const tracks = st.player_state.map((ps) => ps.track);
  const end = S.rules.end_track_pp || 20;
  const top = Math.max(end, ...tracks) ;
  const cell = 14, width = (top + 1) * cell + 4;
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${20 + 6.5 * (tracks.length + 1)}`); svg.setAttribute("id", "score-track");
  svg.setAttribute("preserveAspectRatio", "xMinYMid meet");
  for (let k = 0; k <= top; k++) {
    el("rect", { x: 2 + k * cell, y: 2, width: cell - 1, height: 14, class: "st-cell" + (k === end ? " end" : "") + (k % 5 === 0 ? " five" : "") }, svg);
    if (k % 5 === 0 || k === end) el("text", { x: 2 + k * cell + cell / 2, y: 9.5, "font-size": 9.5, class: "small" }, svg, String(k));
  }
  const stacked = {};
  tracks.forEach((t, p) => {
    const k = stacked[t] = (stacked[t] || 0) + 1;
    const x = 2 + t * cell + cell / 2, y = 17 + k * 6.5;
    const g = el("g", { class: "st-marker", "data-player": p }, svg);
    el("title", {}, g, `player ${p}: ${t} PP on the track`);
    el("circle", { cx: x, cy: y, r: 6, fill: colour(p), class: "piece" }, g);
    el("text", { x, y: y + 0.3, "font-size": 8.5, fill: TEXT_ON[p % 5], class: "piece-text" }, g, String(p));
  });
  return svg;
}

function chip(text, cls, title = null) {
  const c = h("span", { class: "chip " + cls }, text);
  if (title) c.title = title;
  return c;
}

function renderDesks(view) {
  const box = $("desks");
  box.innerHTML = "";
  const st = view.state;
  const info = h("div", { id: "board-info" });
  const facts = [`cities completed ${st.completed_cities || 0}` + (S.rules.completed_cities ? ` / ${S.rules.completed_cities}` : "")];
  const supplySize = st.marker_supply_size !== undefined ? st.marker_supply_size : (st.marker_supply || []).length;
  facts.push(`bonus markers face down ${supplySize - (st.marker_display || []).length}`);
  if ((st.east_west || []).length) facts.push(`East–West: ${st.east_west.map((p) => playerName(view, p)).join(", ")}`);
  info.appendChild(h("div", { class: "muted" }, facts.join(" · ")));
  const trackBox = h("div", { class: "score-box" });
  trackBox.appendChild(h("span", { class: "label" }, `score track (game ends at ${S.rules.end_track_pp || "—"})`));
  trackBox.appendChild(scoreTrack(view));
  info.appendChild(trackBox);
  if (st.marker_display) {  // `choose from a display of N`: the face-up markers every player sees
    const shown = h("div", { id: "marker-display", class: "line" });
    shown.appendChild(h("span", { class: "label" }, "bonus markers on display: "));
    for (const m of st.marker_display) shown.appendChild(helpful(chip(markerName(m), "marker unused"), `${markerName(m)} (face up: the next route's creator may take it)`, helpOf("markers", m)));
    if (!st.marker_display.length) shown.appendChild(document.createTextNode("none"));
    info.appendChild(shown);
  }
  if (st.pawn) {
    const region = st.pawn.region;
    const label = region === null ? "not placed yet" : (S.rules.regions[region] || {}).label || `region ${region}`;
    info.appendChild(h("div", { id: "pawn-info", class: "line" }, `neutral pawn: ${label} · free move ${words(st.pawn.free_move)}`));
  }
  if (st.favour) {
    const fav = h("div", { id: "favour-display", class: "line" });
    fav.appendChild(h("span", { class: "label" }, "Emperor's Favour on display: "));
    for (const t of st.favour.face_up) fav.appendChild(helpful(chip(t, "favour"), t, helpOf("favour", t)));
    if (!st.favour.face_up.length) fav.appendChild(document.createTextNode("none"));
    fav.appendChild(h("span", { class: "muted" }, ` · this turn: ${words(st.favour.this_turn)}`));
    info.appendChild(fav);
  }
  const permits = permissionHolders(st);
  if (permits.length) {
    const line = h("div", { id: "permissions", class: "line" });
    line.appendChild(h("span", { class: "label" }, "permissions: "));
    for (const [country, city, holder] of permits) {
      const c = chip(`${capital(country)} (${city}): ${holder === null ? "nobody" : playerName(S.view, holder)}`, "permit");
      if (holder !== null) { c.style.borderColor = colour(holder); c.style.boxShadow = `inset 4px 0 0 ${colour(holder)}`; }
      line.appendChild(c);
    }
    const used = (st.turn && st.turn.permissions_used) || [];
    if (used.length) line.appendChild(h("span", { class: "muted" }, ` · used this turn: ${used.join(", ")}`));
    info.appendChild(line);
  }
  box.appendChild(info);
  const develop = new Map();
  for (const a of view.your_decision ? view.legal : []) if (a.target && a.target.type === "ability") develop.set(a.target.index, a);
  const desks = h("div", { id: "desk-list" });
  st.player_state.forEach((ps, p) => {
    const desk = h("div", { class: "desk" + (p === view.current_player ? " current" : ""), "data-player": p });
    desk.style.setProperty("--pc", colour(p));
    const head = h("div", { class: "desk-head" });
    head.appendChild(swatch(p, 20));
    head.appendChild(h("span", { class: "name" }, playerName(view, p)));
    head.appendChild(h("span", { class: "muted" }, ` ${colourName(p)} · ${seatLabel(view, p)}` + (p === view.current_player ? " · deciding" : "")));
    const pp = h("span", { class: "pp", title: "PP if the game ended now (final scoring); the track shows the PP scored so far" });
    pp.appendChild(h("b", {}, ppText(view.scores, p)));
    pp.appendChild(h("small", {}, ` PP now · ${ps.track} on track`));
    head.appendChild(pp);
    desk.appendChild(head);
    const pieces = h("div", { class: "line pieces" });
    pieces.appendChild(h("span", { class: "label" }, "supply"));
    pieces.appendChild(countOf(p, "t", ps.supply.traders, "in the personal supply"));
    pieces.appendChild(countOf(p, "m", ps.supply.merchants, "in the personal supply"));
    pieces.appendChild(h("span", { class: "label" }, "stock"));
    pieces.appendChild(countOf(p, "t", ps.stock.traders, "in the general stock"));
    pieces.appendChild(countOf(p, "m", ps.stock.merchants, "in the general stock"));
    desk.appendChild(pieces);
    desk.appendChild(abilityTracks(p, ps, p === view.current_player ? develop : null));
    const markers = ps.markers || { unused: [], used: [] };
    const mk = h("div", { class: "line markers" });
    mk.appendChild(h("span", { class: "label" }, "bonus markers"));
    for (const m of markers.unused) mk.appendChild(helpful(chip(markerName(m), "marker unused"), `${markerName(m)} (unused: may be played)`, helpOf("markers", m)));
    for (const m of markers.used) mk.appendChild(helpful(chip(markerName(m), "marker used"), `${markerName(m)} (used)`, helpOf("markers", m)));
    if (!markers.unused.length && !markers.used.length) mk.appendChild(h("span", { class: "muted" }, "none"));
    desk.appendChild(mk);
    if (st.favour) {
      const held = st.favour.held[p] || [];
      const fav = h("div", { class: "line" });
      fav.appendChild(h("span", { class: "label" }, "favour tiles"));
      for (const t of held) fav.appendChild(helpful(chip(t, "favour"), t, helpOf("favour", t)));
      if (!held.length) fav.appendChild(h("span", { class: "muted" }, "none"));
      desk.appendChild(fav);
    }
    const changed = changedValues(ps);
    if (changed.length) {
      const line = h("div", { class: "line values" });
      line.appendChild(h("span", { class: "label" }, "changed values"));
      for (const c of changed) line.appendChild(chip(c.text, "value", c.title));
      desk.appendChild(line);
    }
    const own = st.own && view.viewer.seat === p ? st.own : null;
    if (own && own.mission_cities) {
      const card = helpful(h("div", { class: "mission", id: "own-mission" },
        `your mission card ${own.mission}: ${own.mission_cities.join(", ")}`), "your secret mission card", S.help && S.help.mission);
      desk.appendChild(card);
    }
    desks.appendChild(desk);
  });
  box.appendChild(desks);
}

// A player's values that a rule changed (an Emperor's Favour tile: "city PP 4"), named as the
// spec names them, each with the value the rules start from.
function changedValues(ps) {
  const values = ps.parameters || {};
  return ((S.rules && S.rules.parameters) || []).filter((x) => x.key in values && values[x.key] !== x.default).map((x) => {
    const usual = x.default < 0 ? "each track's own" : String(x.default);
    return { text: `${words(x.label)} ${values[x.key]}`, title: `${words(x.label)}: ${values[x.key]} (the rules start from ${usual})` };
  });
}

// Who holds each permission (Britannia): the owner of the rightmost post of the city granting it.
function permissionHolders(st) {
  const out = [];
  if (!S.layout) return out;
  const byName = {};
  for (const c of st.cities || []) byName[c.name] = c;
  for (const city of S.layout.cities) {
    for (const country of city.permissions || []) {
      const c = byName[city.name];
      const last = c ? ([...c.posts].reverse().find((x) => x) || (c.additional_posts || []).slice(-1)[0]) : null;
      out.push([country, city.name, last ? Number(last.slice(1)) : null]);
    }
  }
  return out;
}

// a player's PP if the game ended now; "12 + ?" while another player's secret categories (mission
// points) are hidden
function ppText(scores, p) {
  if (scores.totals[p] !== null) return String(scores.totals[p]);
  return `${scores.known[p]} + ?`;
}

// ---------------------------------------------------------------- deciding
// The choices grouped by kind: a kind acting on the board is one button that shows its targets
// (only those); Income is one control with the counts; the rest are buttons. The full list is
// below, searchable.
const KIND_KEYS = { end_turn: "e", income: "i", place: "p", displace: "d", move: "m", create: "c", use_marker: "b", establish: "t", develop: "v" };
function kindWords(kind) {
  return { end_turn: "End the turn", use_marker: "Bonus marker", create: "Create route", place_marker: "Place the drawn marker", done_picking: "Stop picking up", done_removing: "Stop removing", no_post: "Neither post nor ability", perm_use: "Permanent marker", pawn: "Neutral pawn", pawn_pay: "Move the pawn", favour: "Emperor's Favour", flip: "Flip markers", take_piece: "Take from the stock", extra: "Extra piece", place_displaced: "Place the displaced piece" }[kind] || capital(words(kind));
}

function incomeParts(name) {
  const m = /(\d+) traders?, (\d+) merchants?/.exec(name);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

function renderLegal(view) {
  const groupsBox = $("groups");
  const list = $("legal-list");
  groupsBox.innerHTML = ""; list.innerHTML = "";
  $("btn-undo").disabled = !view.can_undo;
  $("btn-undo").textContent = view.undo_size > 1 ? `↶ Undo ${view.undo_size} decisions` : "↶ Undo";
  $("btn-undo").title = view.undo_size > 1
    ? `take back your last decision and the ${view.undo_size - 1} answer(s) to it since (U or Ctrl+Z)`
    : "take back your last decision of this turn (U or Ctrl+Z)";
  const live = view.at === view.length;
  const note = (text) => groupsBox.appendChild(h("div", { class: "note" }, text));
  $("all-choices").classList.toggle("hidden", !view.your_decision);
  if (view.terminal) { $("decision-title").textContent = "Game over"; note("The final scoring is under Scores."); return; }
  if (!live) { $("decision-title").textContent = "Viewing an earlier position"; note("Press End (») to return to the latest position."); return; }
  if (view.mode === "replay") { $("decision-title").textContent = "End of the log"; return; }
  const human = view.your_decision;
  $("decision-title").textContent = human ? `Your decision: ${decisionWords(view)}` : view.waiting_for === "human" ? `${playerName(view, view.current_player)} to decide` : `Agent ${view.seats[view.current_player]} to decide`;
  if (view.waiting_for === "human" && !human) { note("Waiting for that player's decision."); return; }
  if (!human) { note(Number($("agent-delay").value) < 0 ? "Press “agent step” to let it decide." : "…"); return; }
  const groups = new Map();
  for (const a of view.legal) {
    if (!groups.has(a.kind)) groups.set(a.kind, []);
    groups.get(a.kind).push(a);
  }
  const onBoard = [...groups.entries()].filter(([, acts]) => acts.some((a) => a.target && a.target.type !== "ability"));
  // a frame offering one kind on the board (pick, drop, displaced piece…) shows it at once
  if (S.selectedKind && !groups.has(S.selectedKind)) S.selectedKind = null;
  if (!S.selectedKind && onBoard.length === 1 && (groups.size <= 3 || (view.state.stack || []).length)) S.selectedKind = onBoard[0][0];
  for (const [kind, acts] of groups) {
    const row = h("div", { class: "group", "data-kind": kind });
    const key = KIND_KEYS[kind];
    const label = kindWords(kind) + (key ? ` [${key.toUpperCase()}]` : "");
    const targeted = acts.some((a) => a.target && a.target.type !== "ability");
    if (kind === "income") {
      row.appendChild(h("span", { class: "group-name" }, label));
      const select = h("select", { id: "income-choice", "aria-label": "income" });
      const options = acts.map((a) => [a, incomeParts(a.name)]).sort((x, y) => (y[1] ? y[1][0] + y[1][1] : 0) - (x[1] ? x[1][0] + x[1][1] : 0) || (y[1] ? y[1][1] : 0) - (x[1] ? x[1][1] : 0));
      for (const [a, parts] of options) select.appendChild(h("option", { value: a.id }, parts ? `${parts[0]} trader${parts[0] === 1 ? "" : "s"} + ${parts[1]} merchant${parts[1] === 1 ? "" : "s"}` : a.name));
      row.appendChild(select);
      const take = h("button", { class: "go", id: "income-go", "data-kind": kind }, "Take");
      take.addEventListener("click", () => { const a = acts.find((x) => String(x.id) === select.value); if (a) choose(a); });
      select.addEventListener("keydown", (event) => { if (event.key === "Enter") { event.preventDefault(); take.click(); } });
      row.appendChild(take);
    } else if (targeted) {
      const b = h("button", { class: "kind" + (S.selectedKind === kind ? " on" : ""), "data-kind": kind, title: "show where on the board" }, `${label} · ${acts.length}`);
      b.addEventListener("click", () => { S.selectedKind = S.selectedKind === kind ? null : kind; renderLegal(S.view); drawTargets(S.view); });
      row.appendChild(b);
      if (S.selectedKind === kind) row.appendChild(h("span", { class: "muted hint" }, "click a highlighted place on the board"));
    } else if (acts.length === 1) {
      const a = acts[0];
      const b = h("button", { class: "one", "data-kind": kind, "data-action": a.id }, kind === "end_turn" ? label : `${say(a.name)}${key ? ` [${key.toUpperCase()}]` : ""}`);
      b.addEventListener("click", () => choose(a));
      row.appendChild(b);
    } else {
      row.appendChild(h("span", { class: "group-name" }, label));
      for (const a of acts) {
        const b = h("button", { class: "opt", "data-action": a.id }, say(a.name).replace(/^(use bonus marker|develop|take favour tile) /, "").replace(/^pawn to /, ""));
        b.title = say(a.name);
        b.addEventListener("click", () => choose(a));
        row.appendChild(b);
      }
    }
    groupsBox.appendChild(row);
  }
  const filter = ($("legal-search").value || "").toLowerCase();
  for (const a of view.legal) {
    const li = h("li", { class: filter && !say(a.name).toLowerCase().includes(filter) ? "hidden" : "" });
    const button = h("button", { "data-action": a.id, title: `action ${a.id}` }, say(a.name));
    button.addEventListener("click", () => choose(a));
    li.appendChild(button);
    list.appendChild(li);
  }
  $("all-count").textContent = String(view.legal.length);
}

// Make decision `a`, asking first before a turn is ended with actions left.
function choose(a) {
  const st = S.view && S.view.state;
  const left = st && st.turn ? st.turn.actions_left : 0;
  if (a.kind === "end_turn" && left > 0 && !(st.stack || []).length) {
    $("confirm-text").textContent = `End the turn with ${left} action${left === 1 ? "" : "s"} left?`;
    $("confirm").classList.remove("hidden");
    S.confirming = a;
    $("confirm-yes").focus();
    return;
  }
  act(a.id);
}

async function undo() {
  if (!S.view || !S.view.can_undo) return;
  try {
    const view = await api("POST", `/api/sessions/${S.view.id}/undo`, { at: S.view.length, since: Math.min(S.history.length, S.view.length - S.view.undo_size) });
    show(view);
  } catch (err) { if (!refuseOffline()) showError(err.message); }
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
  li.appendChild(document.createTextNode(`${S.view && S.view.names && S.view.names[String(entry.player)] ? S.view.names[String(entry.player)] : "P" + entry.player}: ${say(entry.name)}`));
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
  keys.forEach((k, i) => { const th = helpful(h("th", {}, k), `${k}: ${words(kinds[i])}`, helpOf("scoring", k)); th.appendChild(h("small", {}, words(kinds[i]))); tr.appendChild(th); });
  tr.appendChild(h("th", {}, "total"));
  head.appendChild(tr); table.appendChild(head);
  const body = h("tbody");
  const winners = view.scores.winners || [];
  view.scores.breakdown.forEach((b, p) => {
    const row = h("tr", { class: winners.includes(p) ? "winner" : "" });
    const cell = h("td");
    cell.appendChild(swatch(p, 14));
    cell.appendChild(document.createTextNode(` ${playerName(view, p)} (${seatLabel(view, p)})` + (winners.includes(p) ? (view.terminal ? " — winner" : " — leading") : "")));
    row.appendChild(cell);
    for (const k of keys) row.appendChild(h("td", {}, b[k] === null ? "?" : String(b[k])));
    row.appendChild(h("td", {}, ppText(view.scores, p)));
    body.appendChild(row);
  });
  table.appendChild(body);
  $("scores-title").textContent = view.terminal ? "Final scoring" : `Scoring as if the game ended now (decision ${view.at})`;
  const hidden = view.scores.hidden.length ? ` Other players' ${view.scores.hidden.join(", ")} points are secret until the end (so is the leader).` : "";
  $("scores-note").textContent = view.terminal && view.end_trigger ? `The game ended: ${endWords(view.end_trigger)}; ${view.turns} turns, ${view.length} decisions.` : "Winners after the rule set's tie-break chain." + hidden;
  $("scores").classList.remove("hidden");
}

// ---------------------------------------------------------------- the board
// City names in drawing units (the board's longer side is 1000): about 12 px on a 1280×720 screen.
const CITY_FONT = 14;
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
    if (r.country && L.country_colours[r.country]) { // the country's colour, under the line
      el("polyline", { points: pts, class: "route-country", stroke: L.country_colours[r.country], "data-country": r.country }, g);
    }
    el("polyline", { points: pts, class: "route-line" + (r.sea ? " sea" : "") }, g);
    for (const pt of r.points) {
      S.points[pt.id] = { ...pt, size: r.size, route: r.index };
      const s = r.size;
      if (pt.merchant_only) el("circle", { cx: pt.at[0], cy: pt.at[1], r: s / 2, class: "point-ship" }, g);
      else el("rect", { x: pt.at[0] - s / 2, y: pt.at[1] - s / 2, width: s, height: s, class: "point-house", transform: `rotate(${pt.angle} ${pt.at[0]} ${pt.at[1]})` }, g);
    }
    for (const label of r.labels) {
      const text = label.text.replace(/\n/g, " ");
      const w = text.length * 4.6 + 6;
      const lg = el("g", { class: "route-label " + label.kind }, g);
      if (label.kind === "bonus" && r.permanent) el("title", {}, lg, `permanent bonus marker: ${words(r.permanent)}`);
      el("rect", { x: label.at[0] - w / 2, y: label.at[1] - 6.5, width: w, height: 13, rx: label.kind === "bonus" ? 6 : 2, class: "label-box " + label.kind }, lg);
      el("text", { x: label.at[0], y: label.at[1], "font-size": 8.5, class: "small" }, lg, text);
    }
  }
  const cities = el("g", { id: "cities" }, world);
  for (const c of L.cities) {
    S.cities[c.index] = c;
    const g = el("g", { class: "city", "data-city": c.index }, cities);
    const box = el("rect", { x: c.box[0], y: c.box[1], width: c.box[2], height: c.box[3], rx: 3, class: "city-box" + (c.hanseatic ? "" : " green"), "data-city-box": c.name }, g);
    if (!c.hanseatic) box.setAttribute("fill", L.green_city_colour || "#bfe3b0");
    (c.countries || []).forEach((country, k) => { // a country's colour round the city, one ring each
      el("rect", { x: c.box[0] - 2 - 2.5 * k, y: c.box[1] - 2 - 2.5 * k, width: c.box[2] + 4 + 5 * k, height: c.box[3] + 4 + 5 * k, rx: 4, class: "city-country", stroke: L.country_colours[country] || "#888" }, g);
    });
    for (const sp of c.spaces) {
      S.spaces[sp.id] = { ...sp, city: c.index };
      const fill = L.privilege_colours[sp.privilege] || "#fff";
      if (sp.shape === "round") el("circle", { cx: sp.at[0], cy: sp.at[1], r: size / 2, fill, class: "space" }, g);
      else el("rect", { x: sp.at[0] - size / 2, y: sp.at[1] - size / 2, width: size, height: size, fill, class: "space" }, g);
      if (sp.coin) {
        el("circle", { cx: sp.at[0] + size / 2, cy: sp.at[1] - size / 2, r: 4, fill: "#d4a017", stroke: "#7a5c00" }, g);
        el("text", { x: sp.at[0] + size / 2, y: sp.at[1] - size / 2, "font-size": 7, class: "small" }, g, String(sp.coin));
      }
    }
    el("text", { x: c.name_at[0], y: c.name_at[1] + 1, "font-size": CITY_FONT, class: "city-name" }, g, c.name);
    for (const [text, y] of c.details) el("text", { x: c.name_at[0], y: y + 3, "font-size": 7.5, class: "small detail" }, g, text);
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
  world.insertBefore(el("g", { id: "regions" }), routes); // the pawn's region, under the routes
  el("g", { id: "markers" }, world);
  el("g", { id: "pieces" }, world);
  el("g", { id: "targets" }, world);
}

function applyViewBox() {
  $("board").setAttribute("viewBox", S.viewBox.join(" "));
  if (S.view && S.selectedKind) drawTargets(S.view); // hit areas keep their size on screen
}

function piece(parent, code, x, y, s, extra = {}) {
  const p = Number(code.slice(1));
  const g = el("g", { class: "piece-g", "data-piece": code, ...extra }, parent);
  el(code[0] === "t" ? "rect" : "circle", code[0] === "t" ? { x: x - s / 2 + 1.2, y: y - s / 2 + 1.6, width: s, height: s, rx: s * 0.12, class: "piece-shadow" } : { cx: x + 1.2, cy: y + 1.6, r: s / 2, class: "piece-shadow" }, g);
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
      const text = markerName(r.marker);
      const w = text.length * 4.2 + 8;
      const g = el("g", { class: "marker", "data-marker": r.marker }, markers);
      el("title", {}, g, `bonus marker: ${markerName(r.marker)}` + (helpOf("markers", r.marker) ? ` — ${helpOf("markers", r.marker)}` : ""));
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
      if (!code) return;
      if (city.spaces[j]) piece(layer, code, city.spaces[j].at[0], city.spaces[j].at[1], size * 0.86, { class: "piece-g post" });
      else { // a green city has no printed spaces: its posts in a row, left to right
        const n = c.posts.length, step = size + 2;
        piece(layer, code, city.centre[0] + (j - (n - 1) / 2) * step, city.centre[1] + size * 0.45, size * 0.86, { class: "piece-g post" });
      }
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
  drawPawn(st);
  drawDisplaced(view, layer);
  // the seat's own mission cities, marked
  $("board").querySelectorAll(".city-box.mission").forEach((b) => b.classList.remove("mission"));
  const own = st.own && st.own.mission_cities;
  if (own) for (const name of own) { const b = $("board").querySelector(`[data-city-box="${CSS.escape(name)}"]`); if (b) b.classList.add("mission"); }
  // the last decision, outlined (its point, route or city)
  const last = view.at > 0 ? S.history[view.at - 1] : null;
  if (last) outlineLast(last);
}

// A region's outline as an SVG path: each boundary walk along its routes' drawn lines (straight
// between two cities a soldier joins); the outer region is the board's frame less the drawing.
function regionPath(index, region) {
  let d = "";
  if (index === 0) { const [w, hgt] = S.layout.frame; d = `M 0 0 H ${w} V ${hgt} H 0 Z `; }
  for (const walk of region.outline || []) {
    const points = [];
    walk.forEach((c, i) => {
      const [a, b] = [S.cities[c], S.cities[walk[(i + 1) % walk.length]]];
      const route = S.routeByKey[routeKey(a.name, b.name)];
      if (!route) { points.push(a.centre, b.centre); return; }
      points.push(...(route.cities[0] === a.name ? route.path : [...route.path].reverse()));
    });
    if (points.length > 2) d += "M " + points.map((p) => p.join(" ")).join(" L ") + " Z ";
  }
  return d;
}

// The 2-player variant's neutral pawn: its region filled and its border routes tinted, the pawn
// in the middle.
function drawPawn(st) {
  const layer = $("regions");
  layer.innerHTML = "";
  if (!st.pawn || st.pawn.region === null || st.pawn.region === undefined) return;
  const region = S.rules.regions[st.pawn.region];
  if (!region) return;
  const fill = regionPath(st.pawn.region, region);
  if (fill) el("path", { d: fill, class: "region-fill", "fill-rule": "evenodd", "data-region": st.pawn.region }, layer);
  const mids = [];
  for (const r of region.routes) {
    const route = S.routes[r];
    if (!route) continue;
    el("polyline", { points: route.path.map((p) => p.join(",")).join(" "), class: "region-border" }, layer);
    mids.push(route.path[Math.floor(route.path.length / 2)]);
  }
  let [x, y] = mids.length ? [mids.reduce((a, m) => a + m[0], 0) / mids.length, mids.reduce((a, m) => a + m[1], 0) / mids.length] : [S.layout.frame[0] - 30, 30];
  if (st.pawn.region === 0) [x, y] = [S.layout.frame[0] - 40, 40]; // the outer region: by the edge
  const g = el("g", { id: "pawn", class: "pawn" }, $("pieces"));
  el("title", {}, g, `neutral pawn: ${region.label}`);
  el("path", { d: `M ${x - 9} ${y + 12} L ${x + 9} ${y + 12} L ${x + 4} ${y - 2} A 6 6 0 1 0 ${x - 4} ${y - 2} Z`, class: "pawn-shape" }, g);
  el("text", { x, y: y + 21, "font-size": 8, class: "small pawn-label" }, g, "pawn");
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
  if (!view.your_decision || !S.selectedKind) return;
  const groups = new Map();
  for (const a of view.legal) {
    if (!a.target || a.target.type === "ability" || a.kind !== S.selectedKind) continue;
    const key = `${a.target.type}:${a.target.index}`;
    if (!groups.has(key)) groups.set(key, { target: a.target, actions: [] });
    groups.get(key).actions.push(a);
  }
  for (const [key, group] of groups) {
    const g = el("g", { class: "legal target", "data-target": key, "data-actions": group.actions.map((a) => a.id).join(",") }, layer);
    el("title", {}, g, group.actions.map((a) => say(a.name)).join("\n"));
    const hit = targetShape(group.target);
    if (!hit) continue;
    const ring = hit.cloneNode();
    growHit(hit);
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
      if (group.actions.length === 1) choose(group.actions[0]);
      else showMenu(event, group.actions);
    });
  }
}

// Drawing units per screen pixel at the current zoom (the board is drawn "meet": the larger ratio).
function unitsPerPixel() {
  const rect = $("board").getBoundingClientRect();
  if (!S.viewBox || !rect.width || !rect.height) return 1;
  return Math.max(S.viewBox[2] / rect.width, S.viewBox[3] / rect.height);
}
// A target's clickable shape spans at least MIN_HIT screen pixels whatever the zoom.
const MIN_HIT = 24;
function growHit(hit) {
  const half = (MIN_HIT / 2) * unitsPerPixel();
  const tag = hit.tagName;
  if (tag === "circle") hit.setAttribute("r", Math.max(Number(hit.getAttribute("r")), half));
  else if (tag === "rect") {
    for (const [pos, size] of [["x", "width"], ["y", "height"]]) {
      const p = Number(hit.getAttribute(pos)), w = Number(hit.getAttribute(size));
      if (w < 2 * half) { hit.setAttribute(pos, p - (2 * half - w) / 2); hit.setAttribute(size, 2 * half); }
    }
  } else if (tag === "polyline") hit.style.strokeWidth = String(Math.max(14, 2 * half));
}

function showMenu(event, actions) {
  const menu = $("menu");
  menu.innerHTML = "";
  for (const a of actions) {
    const b = h("button", { "data-action": a.id }, a.target && a.target.piece ? (a.target.piece === "t" ? "▪ trader — " : "● merchant — ") + say(a.name) : say(a.name));
    b.addEventListener("click", (e) => { e.stopPropagation(); choose(a); });
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
  // one pointer (mouse, pen or finger) pans; two fingers pinch to zoom
  let drag = null;
  const touches = new Map();
  svg.addEventListener("pointerdown", (event) => {
    touches.set(event.pointerId, [event.clientX, event.clientY]);
    drag = { x: event.clientX, y: event.clientY, box: S.viewBox && S.viewBox.slice(), moved: false };
    if (touches.size === 2) {
      const [a, b] = [...touches.values()];
      drag.pinch = Math.hypot(a[0] - b[0], a[1] - b[1]);
    }
  });
  window.addEventListener("pointermove", (event) => {
    if (!drag || !drag.box) return;
    if (touches.has(event.pointerId)) touches.set(event.pointerId, [event.clientX, event.clientY]);
    const rect = svg.getBoundingClientRect();
    if (touches.size === 2 && drag.pinch) {
      const [a, b] = [...touches.values()];
      const now = Math.hypot(a[0] - b[0], a[1] - b[1]);
      if (now > 0) {
        S.viewBox = drag.box.slice();
        zoom(drag.pinch / now, ((a[0] + b[0]) / 2 - rect.left) / rect.width, ((a[1] + b[1]) / 2 - rect.top) / rect.height);
      }
      return;
    }
    if (Math.abs(event.clientX - drag.x) + Math.abs(event.clientY - drag.y) < 3 && !drag.moved) return;
    drag.moved = true;
    const scale = Math.max(drag.box[2] / rect.width, drag.box[3] / rect.height);
    S.viewBox = [drag.box[0] - (event.clientX - drag.x) * scale, drag.box[1] - (event.clientY - drag.y) * scale, drag.box[2], drag.box[3]];
    applyViewBox();
  });
  const up = (event) => { touches.delete(event.pointerId); if (!touches.size) drag = null; };
  window.addEventListener("pointerup", up);
  window.addEventListener("pointercancel", up);
  svg.addEventListener("click", () => hideMenu());
  $("zoom-in").addEventListener("click", () => zoom(1 / 1.3));
  $("zoom-out").addEventListener("click", () => zoom(1.3));
  $("zoom-fit").addEventListener("click", () => { if (S.layout) { S.viewBox = S.layout.view_box.slice(); applyViewBox(); } });
}

// ---------------------------------------------------------------- keyboard and layout
// A letter picks a kind of decision (shown in brackets on its button); "u" takes back, "/"
// searches the full list, "f" fits the board.
function shortcut(key) {
  if (key === "/") { $("all-choices").open = true; $("legal-search").focus(); return true; }
  if (key === "f") { $("zoom-fit").click(); return true; }
  if (key === "+" || key === "=") { zoom(1 / 1.3); return true; }
  if (key === "-") { zoom(1.3); return true; }
  if (key === "?") { $("keys-help").classList.toggle("hidden"); return true; }
  if (key === "u") { undo(); return true; }
  const kind = Object.keys(KIND_KEYS).find((k) => KIND_KEYS[k] === key);
  if (!kind || !S.view || !S.view.your_decision) return false;
  const button = $("groups").querySelector(`.group[data-kind="${kind}"] button`);
  if (!button) return false;
  if (kind === "income") $("income-choice").focus();
  else button.click();
  return true;
}

// The board fills its area in either orientation: the side panel takes what a board of this
// shape leaves (a portrait board, Britannia, gets a wide panel with the desks in two columns).
function fitLayout() {
  if (!S.layout) return;
  if (window.matchMedia("(max-width: 760px)").matches) { // a phone: panels below the board
    $("side").style.width = "";
    document.body.classList.remove("wide-side");
    sizeCityNames();
    return;
  }
  const [, , w, hgt] = S.layout.view_box;
  const area = $("main").getBoundingClientRect();
  const ideal = area.height * (w / hgt);
  const side = Math.round(Math.min(Math.max(area.width - ideal, 400), area.width * 0.62));
  $("side").style.width = `${side}px`;
  document.body.classList.toggle("wide-side", side >= 640);
  sizeCityNames();
}

// City names stay legible on a board drawn small (Britannia on a laptop): at least CITY_PX
// screen pixels when the whole board is shown; zooming in makes them larger.
const CITY_PX = 11.5;
function sizeCityNames() {
  const rect = $("board").getBoundingClientRect();
  if (!S.layout || !rect.width || !rect.height) return;
  const [, , w, hgt] = S.layout.view_box;
  const units = Math.max(CITY_FONT, CITY_PX * Math.max(w / rect.width, hgt / rect.height));
  for (const t of $("board").querySelectorAll(".city-name")) t.setAttribute("font-size", units.toFixed(2));
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
  $("links-close").addEventListener("click", () => { $("links").classList.add("hidden"); forgetOtherSeats(); });
  $("btn-rules").addEventListener("click", showRules);
  $("rules-close").addEventListener("click", () => $("rules-panel").classList.add("hidden"));
  $("btn-sound").addEventListener("click", toggleSound);
  $("btn-notify").addEventListener("click", askNotify);
  $("since-close").addEventListener("click", () => { if (S.view && S.view.since_mine) S.sinceDismissed = sinceKey(S.view); $("since-box").classList.add("hidden"); });
  $("name-form").addEventListener("submit", (event) => { event.preventDefault(); talk("name", { name: $("name-input").value }); });
  $("chat-form").addEventListener("submit", (event) => { event.preventDefault(); talk("chat", { text: $("chat-input").value }).then((ok) => { if (ok) $("chat-input").value = ""; }); });
  document.addEventListener("click", helpTap, true);
  renderSoundButton();
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
  $("btn-undo").addEventListener("click", undo);
  $("btn-keys").addEventListener("click", () => $("keys-help").classList.remove("hidden"));
  $("keys-close").addEventListener("click", () => $("keys-help").classList.add("hidden"));
  $("confirm-yes").addEventListener("click", () => { const a = S.confirming; S.confirming = null; $("confirm").classList.add("hidden"); if (a) act(a.id); });
  $("confirm-no").addEventListener("click", () => { S.confirming = null; $("confirm").classList.add("hidden"); });
  $("legal-search").addEventListener("input", () => { if (S.view) renderLegal(S.view); $("legal-search").focus(); });
  $("legal-search").addEventListener("keydown", (event) => {
    if (event.key === "Enter") { const first = $("legal-list").querySelector("li:not(.hidden) button"); if (first) first.click(); }
    if (event.key === "Escape") { event.target.value = ""; event.target.blur(); if (S.view) renderLegal(S.view); }
  });
  window.addEventListener("resize", fitLayout);
  document.addEventListener("keydown", (event) => {
    if (["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName) && event.target.type !== "range") return;
    if (!$("confirm").classList.contains("hidden")) {
      if (event.key === "Enter" || event.key === "y") $("confirm-yes").click();
      else if (event.key === "Escape" || event.key === "n") $("confirm-no").click();
      event.preventDefault();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) {
      if (event.key === "z" && (event.ctrlKey || event.metaKey)) { undo(); event.preventDefault(); }
      return;
    }
    if (shortcut(event.key)) { event.preventDefault(); return; }
    if (event.key === "ArrowLeft") { step(-1); event.preventDefault(); }
    else if (event.key === "ArrowRight") { step(1); event.preventDefault(); }
    else if (event.key === "Home") { if (S.view) fetchView(0); event.preventDefault(); }
    else if (event.key === "End") { if (S.view) fetchView(null); event.preventDefault(); }
    else if (event.key === "Escape") {
      hideMenu(); $("scores").classList.add("hidden"); $("keys-help").classList.add("hidden"); $("rules-panel").classList.add("hidden"); hideHelp();
      if (!$("links").classList.contains("hidden")) { $("links").classList.add("hidden"); forgetOtherSeats(); }
      if (S.selectedKind && S.view) { S.selectedKind = null; renderLegal(S.view); drawTargets(S.view); }
    }
  });
  setupBoardControls();
  loadCatalogue().then(joinFromLink).catch((err) => showError(err.message));
  window.addEventListener("hashchange", () => joinFromLink().catch((err) => showError(err.message)));
}

// ---------------------------------------------------------------- your turn: sound and notification
// Both are the player's choice: the sound is switched on by a click (and remembered), and the
// browser's permission for notifications is asked only when "Notify me" is clicked, never on load.
function renderSoundButton() {
  const b = $("btn-sound");
  b.textContent = S.sound ? "♪ on" : "♪ off";
  b.setAttribute("aria-pressed", S.sound ? "true" : "false");
}
function toggleSound() {
  S.sound = !S.sound;
  localStorage.setItem("hansa-sound", S.sound ? "on" : "off");
  renderSoundButton();
  if (S.sound) beep();
}
function beep() {
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    S.audio = S.audio || new Ctx();
    const osc = S.audio.createOscillator(), gain = S.audio.createGain();
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, S.audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, S.audio.currentTime + 0.4);
    osc.connect(gain).connect(S.audio.destination);
    osc.start(); osc.stop(S.audio.currentTime + 0.4);
    document.body.dataset.beeps = String(Number(document.body.dataset.beeps || 0) + 1);
  } catch (err) { /* no sound device: the title and icon still say it */ }
}
async function askNotify() {
  if (!("Notification" in window)) { showError("this browser has no notifications"); return; }
  const answer = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
  S.notify = answer === "granted";
  $("btn-notify").textContent = S.notify ? "Notifying" : "Notify me";
  $("btn-notify").title = S.notify ? "a notification comes when it is your turn and this tab is hidden" : `notifications are ${answer} for this site`;
}
function announceTurn(view, signal) {
  if (S.sound) beep();
  if (S.notify && document.hidden && "Notification" in window && Notification.permission === "granted") {
    const text = signal === "displaced" ? "Your piece was displaced: place your pieces" : "It is your turn";
    try { new Notification(`hansa: ${text}`, { body: `${view.game} · decision ${view.length + 1}`, tag: `hansa-${view.id}` }); } catch (err) { /* ignored */ }
  }
}

// ---------------------------------------------------------------- rules help
// The texts come from the server (hansa.web.rules_help), the same as docs/serve.md lists: shown
// on hover (title) and on a tap or click (a small box), so a phone shows them too.
function helpOf(group, key) {
  return S.help && S.help[group] ? S.help[group][key] || null : null;
}
function helpful(node, name, text) {
  node.title = text ? `${name}: ${text}` : name;
  if (text) { node.dataset.help = text; node.dataset.helpName = name; node.classList.add("has-help"); }
  return node;
}
function helpTap(event) {
  const target = event.target.closest && event.target.closest("[data-help]");
  if (!target || target.closest(".developable")) { if (!event.target.closest || !event.target.closest("#help-pop")) hideHelp(); return; }
  const pop = $("help-pop");
  pop.textContent = "";
  pop.appendChild(h("b", {}, target.dataset.helpName || ""));
  pop.appendChild(h("div", {}, target.dataset.help));
  const r = target.getBoundingClientRect();
  pop.classList.remove("hidden");
  pop.style.left = `${Math.max(4, Math.min(r.left, window.innerWidth - pop.offsetWidth - 4))}px`;
  pop.style.top = `${Math.min(r.bottom + 4, window.innerHeight - pop.offsetHeight - 4)}px`;
}
function hideHelp() { $("help-pop").classList.add("hidden"); }

function showRules() {
  const help = S.help;
  const changes = $("rules-changes"), list = $("rules-help");
  changes.innerHTML = ""; list.innerHTML = "";
  if (!help) { changes.appendChild(h("p", { class: "muted" }, "loading…")); $("rules-panel").classList.remove("hidden"); return; }
  $("rules-title").textContent = `This game's rules: ${help.rules}`;
  if (help.note) changes.appendChild(h("p", {}, help.note));
  if (help.changes.length) {
    changes.appendChild(h("p", {}, `What ${help.rules} changes against the edition ${help.edition} (hansa diff ${help.edition} ${help.rules}):`));
    const ul = h("ul", { id: "rules-edits" });
    for (const c of help.changes) ul.appendChild(h("li", {}, `${c.area}: ${c.text}`));
    changes.appendChild(ul);
  }
  const add = (name, text) => { if (!text) return; list.appendChild(h("dt", {}, name)); list.appendChild(h("dd", {}, text)); };
  for (const [key, text] of Object.entries(help.markers)) add(`bonus marker ${markerName(key)}`, text);
  for (const [key, text] of Object.entries(help.favour)) add(`favour tile ${key}`, text);
  add("mission card", help.mission);
  for (const [key, text] of Object.entries(help.abilities)) add(`ability ${words(key)}`, text);
  S.rules.score_keys.forEach((k, i) => add(`scoring ${k} (${words(S.rules.score_kinds[i])})`, help.scoring[k]));
  $("rules-panel").classList.remove("hidden");
}

// ---------------------------------------------------------------- since your last decision
function sinceKey(view) { return `${view.id}:${view.since_mine.from}:${view.length}`; }
function routeName(cities) { return cities.join("–"); }
function renderSince(view) {
  const box = $("since-box"), notice = $("displaced-notice");
  const since = view.since_mine;
  const displaced = turnSignal(view) === "displaced";
  notice.classList.toggle("hidden", !displaced);
  if (displaced) {
    const top = view.state.stack[view.state.stack.length - 1];
    const lost = since ? since.lost.filter((x) => x.by) : [];
    const by = lost.length ? ` by ${playerName(view, Number(lost[lost.length - 1].by.slice(1)))}` : "";
    const route = displacedRoute(top);
    const where = lost.length ? ` on ${routeName(lost[lost.length - 1].cities)}` : route ? ` on ${routeName(route.cities)}` : "";
    const what = top.holding ? `your ${top.holding}` : "your piece";
    notice.textContent = `${capital(what)}${where} was displaced${by}: place it and your extra pieces on the highlighted points next to that route (or decline).`;
  }
  if (!since || !view.your_decision || S.sinceDismissed === sinceKey(view)) { box.classList.add("hidden"); return; }
  const list = $("since-list");
  list.innerHTML = "";
  const line = (text, cls = "") => list.appendChild(h("li", { class: cls }, text));
  line(since.decisions.map((d) => `${playerName(view, d.player)}: ${d.count} decision${d.count === 1 ? "" : "s"}`).join(" · "));
  for (const x of since.lost) {
    const piece = x.piece[0] === "t" ? "trader" : "merchant";
    line(x.by ? `your ${piece} on ${routeName(x.cities)} was displaced by ${playerName(view, Number(x.by.slice(1)))}` : `your ${piece} left ${routeName(x.cities)}`, "mine");
  }
  for (const c of since.created) line(`${playerName(view, c.player)} created the route ${S.routes[c.route] ? routeName(S.routes[c.route].cities) : c.route}`);
  for (const c of since.posts) line(`${playerName(view, c.player)} established a post in ${S.cities[c.city] ? S.cities[c.city].name : c.city}`);
  for (const m of since.markers) line(`bonus marker ${markerName(m.marker)} ${m.change === "placed" ? "put on" : "taken from"} ${routeName(m.cities)}`);
  for (const t of since.track) line(`${playerName(view, t.player)}: ${t.before} → ${t.now} PP on the track`);
  box.classList.remove("hidden");
}

// The route a displaced frame names (its index, or its two cities).
function displacedRoute(top) {
  if (typeof top.route === "number") return S.routes[top.route] || null;
  return Array.isArray(top.route) ? S.routeByKey[routeKey(top.route[0], top.route[1])] || null : null;
}

// The displaced piece, drawn beside its route while its owner places it.
function drawDisplaced(view, layer) {
  const stack = view.state.stack || [];
  const top = stack.length ? stack[stack.length - 1] : null;
  if (!top || top.frame !== "displaced" || !top.holding) return;
  const route = displacedRoute(top);
  if (!route) return;
  const [x, y] = markerSpot(route);
  const g = piece(layer, `${top.holding === "merchant" ? "m" : "t"}${top.player}`, x, y - route.size, route.size * 1.6, { class: "piece-g displaced", id: "displaced-piece" });
  el("title", {}, g, `${playerName(view, top.player)}'s displaced ${top.holding}: to be placed`);
}

// ---------------------------------------------------------------- names and chat
function renderTalk(view) {
  const seat = view.viewer.role === "seat";
  $("name-form").classList.toggle("hidden", !seat || view.mode === "replay");
  if (seat && document.activeElement !== $("name-input")) $("name-input").value = (view.names || {})[String(view.viewer.seat)] || "";
  $("chat-form").classList.toggle("hidden", !(seat || view.viewer.role === "host") || view.mode === "replay");
  const list = $("chat-list");
  const shown = Number(list.dataset.last || 0);
  const chat = view.chat || [];
  if (list.dataset.game !== view.id || (chat.length && chat[chat.length - 1].n < shown)) { list.innerHTML = ""; list.dataset.game = view.id; list.dataset.last = "0"; }
  for (const m of chat) {
    if (m.n <= Number(list.dataset.last)) continue;
    const li = h("li", { "data-n": m.n });
    const who = h("b", {}, m.role === "seat" ? playerName(view, m.seat) : "host");
    if (m.role === "seat") who.style.color = colour(m.seat);
    li.appendChild(who);
    li.appendChild(document.createTextNode(": " + m.text)); // text, never markup
    list.appendChild(li);
    list.dataset.last = String(m.n);
    list.scrollTop = list.scrollHeight;
  }
}
async function talk(what, body) {
  if (!S.view) return false;
  try {
    body.since = S.history.length;
    show(await api("POST", `/api/sessions/${S.view.id}/${what}`, body));
    return true;
  } catch (err) { if (!refuseOffline()) showError(err.message); return false; }
}

setup();
