// The rules of each game (the Rules screen's sections), in either language.
"use strict";
const $ = (id) => document.getElementById(id);

async function show() {
  const q = new URLSearchParams({game: $("game").value, lang: $("lang").value});
  history.replaceState(null, "", `?${q}`);
  const body = await fetch(`/api/rules?${q}`).then((r) => r.json());
  $("rules").replaceChildren(...(body.sections || []).map((s) => el("section", {id: s.key},
    el("h2", {text: s.title}), ...s.text.split("\n").map((t) => el("p", {text: t})))));
}

async function start() {
  const state = await table().catch(() => ({}));
  nav("rules");
  $("h").textContent = w("rules");
  const games = await fetch("/api/games").then((r) => r.json());
  $("game").replaceChildren(...games.games.map((g) => el("option", {value: g.id, text: g.title})));
  const params = new URLSearchParams(location.search);
  $("game").value = params.get("game") || state.game || games.games[0].id;
  $("lang").value = params.get("lang") || LANG;
  $("game").addEventListener("change", show);
  $("lang").addEventListener("change", show);
  await show();
}
start();
