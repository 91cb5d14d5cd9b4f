// History and statistics: filters by game and player, tables, plots (SVG drawn on the device), downloads.
"use strict";
const $ = (id) => document.getElementById(id);

function query() {
  const q = new URLSearchParams();
  if ($("game").value) q.set("game", $("game").value);
  if ($("player").value.trim()) q.set("player", $("player").value.trim());
  return q;
}

function gameTable(games) {
  const head = el("tr", {}, ...[w("date"), w("game"), w("players"), w("duration"), ""].map((t) => el("th", {text: t})));
  const rows = games.map((g) => {
    const players = el("ol", {});
    for (const p of [...g.players].sort((a, b) => a.rank - b.rank)) {
      const t = p.turn_times && p.turn_times.average_s != null ? ` · ${w("turn")} ${p.turn_times.average_s.toFixed(1)} s` : "";
      players.append(el("li", {text: `${p.winner ? "★ " : ""}${p.name}: ${p.score ?? "–"}${t}`}));
    }
    const link = el("a", {href: g.bgstats, target: "_blank", rel: "noopener", text: w("bgstats")});
    return el("tr", {"data-id": g.id}, el("td", {text: g.date ? (g.date_source === "phone" ? `${g.date} (${w("phoneDate")})` : g.date) : w("unknownDate")}),
      el("td", {text: g.title + (g.finished ? "" : ` (${w("ended")})`)}), el("td", {}, players),
      el("td", {text: clock(g.duration_s)}), el("td", {}, link));
  });
  return el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows));
}

function statsTable(rows) {
  const cols = [["player", w("player")], ["title", w("game")], ["plays", w("plays")], ["wins", w("wins")],
    ["win_rate", w("winRate")], ["average_score", w("avg")], ["best_score", w("best")], ["average_turn_s", w("turn")]];
  const head = el("tr", {}, ...cols.map(([, t]) => el("th", {text: t})));
  const body = rows.map((r) => el("tr", {}, ...cols.map(([k]) => el("td", {
    text: r[k] == null ? "–" : k === "win_rate" ? `${Math.round(r[k] * 100)} %` : String(r[k])}))));
  return el("table", {}, el("thead", {}, head), el("tbody", {}, ...body));
}

// The plots with something to draw; for the others a sentence saying why, never an empty chart.
function plots(drawn, q) {
  const kids = drawn.map((k) => el("img", {src: `/api/plots/${k}.svg?${q}`, alt: k, width: "800", height: "400"}));
  if (!drawn.length) kids.push(el("p", {class: "noplot", text: w("noPlays")}));
  else if (!drawn.includes("turns")) kids.push(el("p", {class: "noplot", text: w("noTurns")}));
  return kids;
}

async function show() {
  const q = query();
  history.replaceState(null, "", q.toString() ? `?${q}` : location.pathname);
  const [games, stats] = await Promise.all([
    fetch(`/api/history?${q}`).then((r) => r.json()), fetch(`/api/stats?${q}`).then((r) => r.json())]);
  $("games").replaceChildren(games.games ? gameTable(games.games) : el("p", {class: "err", text: games.result.error_msg}));
  $("stats").replaceChildren(stats.players ? statsTable(stats.players) : el("p", {}));
  const names = new Set();
  (games.games || []).forEach((g) => g.players.forEach((p) => names.add(p.name)));
  if (!$("player").value) $("names").replaceChildren(...[...names].sort().map((n) => el("option", {value: n})));
  q.set("lang", LANG);
  $("plots").replaceChildren(...plots(stats.plots || ["scores", "wins", "turns"], q));
  q.delete("lang");
  $("downloads").replaceChildren(w("downloads") + ": ",
    el("a", {href: `/api/history.csv?${q}`, text: "CSV"}), " · ", el("a", {href: `/api/history.json?${q}`, text: "JSON"}),
    " · ", el("a", {href: `/api/history.bgsplay?${q}`, text: "BG Stats (.bgsplay)"}));
  document.body.dataset.shown = String(Date.now());
}

async function start() {
  await table().catch(() => {});
  nav("history");
  $("h").textContent = w("history");
  $("l-game").textContent = w("game");
  $("l-player").textContent = w("player");
  $("show").textContent = w("filter");
  $("h-plots").textContent = w("plotsTitle");
  $("h-stats").textContent = w("stats");
  $("h-games").textContent = w("history");
  const games = await fetch("/api/games").then((r) => r.json());
  $("game").replaceChildren(el("option", {value: "", text: w("all")}), ...games.games.map((g) => el("option", {value: g.id, text: g.title})));
  const params = new URLSearchParams(location.search);
  $("game").value = params.get("game") || "";
  $("player").value = params.get("player") || "";
  $("filter").addEventListener("submit", (e) => { e.preventDefault(); show(); });
  await show();
}
start();
