// The live scoreboard: one WebSocket (/ws), the whole state first, then the keys that changed.
// Reconnects with backoff; when the tab becomes visible again it catches up at once.
"use strict";
let state = {}, socket = null, backoff = 500, retry = null, version = 0;

function render() {
  LANG = state.language || LANG;
  document.documentElement.lang = LANG;
  nav("board");
  live(socket && socket.readyState === 1);
  const fin = state.finished;
  const $ = (id) => document.getElementById(id);
  $("title").textContent = state.game ? state.title : (fin ? `${fin.title}: ${w("over")}` : "tablemate");
  $("timer").textContent = state.timer ? state.timer.text : "";
  $("prompt").textContent = state.prompt ? state.prompt.title : "";
  $("message").textContent = state.message || "";
  const cards = [];
  if (state.game) {
    for (const p of state.players) {
      const cls = ["player", p.turn ? "turn" : "", p.waiting ? "waiting" : "", (state.winners || []).includes(p.name) ? "winner" : ""].join(" ");
      cards.push(el("div", {class: cls, "data-name": p.name},
        el("div", {class: "who"}, name(p), el("div", {class: "shown", text: p.shown || ""})),
        el("div", {class: "score", text: p.score == null ? "" : String(p.score)})));
    }
  } else if (fin) {
    for (const p of fin.players) {
      cards.push(el("div", {class: "player" + (p.winner ? " winner" : ""), "data-name": p.name},
        el("div", {class: "who"}, name(p)),
        el("div", {class: "score", text: p.score == null ? "" : String(p.score)})));
    }
  } else {
    cards.push(el("div", {class: "idle", text: w("noGame")}));
  }
  const players = $("players");
  players.style.setProperty("--cols", String(columns(cards.length)));
  players.replaceChildren(...cards);
  fitNames();
  const said = new Set([state.message || ""]);  // the last move is said once: not again in the lists
  const lines = (state.lines || []).filter((t) => !said.has(t));
  lines.forEach((t) => said.add(t));
  $("lines").replaceChildren(...lines.map((t) => el("li", {text: spelled(t)})));
  const outcomes = (state.outcomes || []).filter((t) => !said.has(t)).slice(-5).reverse();
  $("last-h").hidden = !outcomes.length;
  $("last-h").textContent = w("last");
  $("outcomes").replaceChildren(...outcomes.map((t) => el("li", {text: t})));
  version += 1;
  document.body.dataset.version = String(version);
}

// A name is never broken inside a word: where it does not fit its card whole, it is shortened as
// the panel shortens it (the shortest start that tells it from the others), its whole in the
// tooltip; a name that still does not fit gets smaller type.
function name(p) {
  return el("div", {class: "name", text: p.name, "data-whole": p.name, "data-short": p.short || p.name});
}

function fitNames() {
  for (const node of document.querySelectorAll("#players .name")) {
    node.textContent = node.dataset.whole;
    node.style.fontSize = "";
    node.removeAttribute("title");
    if (!overflows(node)) continue;
    node.textContent = node.dataset.short;
    node.title = node.dataset.whole;
    const size = parseFloat(getComputedStyle(node).fontSize);
    for (let scale = 0.9; overflows(node) && scale > 0.45; scale -= 0.1) node.style.fontSize = `${size * scale}px`;
  }
}

const overflows = (node) => node.scrollWidth > node.clientWidth + 1;

// The TV's grid: the cards in as few rows as keep them wide (four in two by two).
const columns = (n) => (n <= 3 ? Math.max(n, 1) : n === 4 ? 2 : 3);

function live(on) {
  const node = document.getElementById("live");
  if (node) { node.className = "live " + (on ? "on" : "off"); node.textContent = w(on ? "live" : "offline"); }
}

function connect() {
  if (socket && socket.readyState <= 1) return;
  clearTimeout(retry);
  socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  socket.onopen = () => { backoff = 500; live(true); };
  socket.onmessage = (msg) => {
    const data = JSON.parse(msg.data);
    if (data.event_type === "state") state = data.event;
    else if (data.event_type === "state_diff") Object.assign(state, data.event);
    else return;
    render();
  };
  socket.onclose = () => {
    live(false);
    retry = setTimeout(connect, backoff);
    backoff = Math.min(backoff * 2, 10000);  // 0.5 s, 1 s, 2 s … at most 10 s between tries
  };
}

let fitting = null;
window.addEventListener("resize", () => { cancelAnimationFrame(fitting); fitting = requestAnimationFrame(fitNames); });

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState !== "visible") return;
  backoff = 500;
  if (!socket || socket.readyState > 1) connect();  // mobile browsers kill background sockets
  else table().then((s) => { state = s; render(); }).catch(() => {});
});
nav("board");
connect();
