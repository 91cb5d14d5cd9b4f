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
        el("div", {class: "who"}, el("div", {class: "name", text: p.name}), el("div", {class: "shown", text: p.shown || ""})),
        el("div", {class: "score", text: p.score == null ? "" : String(p.score)})));
    }
  } else if (fin) {
    for (const p of fin.players) {
      cards.push(el("div", {class: "player" + (p.winner ? " winner" : ""), "data-name": p.name},
        el("div", {class: "who"}, el("div", {class: "name", text: p.name})),
        el("div", {class: "score", text: p.score == null ? "" : String(p.score)})));
    }
  } else {
    cards.push(el("div", {class: "idle", text: w("noGame")}));
  }
  $("players").replaceChildren(...cards);
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

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState !== "visible") return;
  backoff = 500;
  if (!socket || socket.readyState > 1) connect();  // mobile browsers kill background sockets
  else table().then((s) => { state = s; render(); }).catch(() => {});
});
nav("board");
connect();
