// Pairing (the code shown on the table, from its QR link or typed), then names and settings.
"use strict";
const $ = (id) => document.getElementById(id);

async function post(path, body) {
  const r = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body), credentials: "same-origin"});
  const data = await r.json().catch(() => ({}));
  const out = $("result");
  if (r.ok) { out.className = "okmsg"; out.textContent = w("saved"); }
  else { out.className = "err"; out.textContent = (data.result && data.result.error_msg) || `HTTP ${r.status}`; }
  return r.ok;
}

async function refresh() {
  const state = await table();
  nav("phone");
  for (const [id, key] of [["h", "phone"], ["l-code", "code"], ["b-pair", "pair"], ["l-names", "names"], ["b-names", "save"],
    ["l-settings", "settings"], ["l-language", "language"], ["l-brightness", "brightness"], ["l-sound", "sound"],
    ["l-beeps", "beeps"], ["b-settings", "save"], ["l-timers", "timers"], ["l-seconds", "seconds"], ["b-timers", "save"]]) {
    $(id).textContent = w(key);
  }
  for (const option of document.querySelectorAll("#timer_sound option, #t-mode option")) {
    option.textContent = w(`${option.parentElement.id === "t-mode" ? "mode" : "beeps"}_${option.value}`);
  }
  const me = await fetch("/api/me", {cache: "no-store"}).then((r) => r.json());
  $("status").textContent = w(me.paired ? "paired" : "unpaired");
  $("pair").hidden = me.paired;
  $("paired").hidden = !me.paired;
  $("seats").replaceChildren(...Object.entries(state.seats).map(([seat, name]) =>
    el("label", {}, `${seat.toUpperCase()} `, el("input", {name: seat, value: name, maxlength: "20", "data-seat": seat}))));
  const s = state.settings || {};
  $("language").value = s.language || "en";
  $("brightness").value = s.brightness || 200;
  $("sound").checked = !!s.sound;
  $("timer_sound").value = s.timer_sound || "all";
  const games = await fetch("/api/games").then((r) => r.json());
  $("t-game").replaceChildren(...games.games.map((g) => el("option", {value: g.id, text: g.title})));
  if (state.game) $("t-game").value = state.game;
}

$("pair").addEventListener("submit", async (e) => {
  e.preventDefault();
  if (await post("/api/pair", {code: $("code").value.trim()})) refresh();
});
$("names").addEventListener("submit", (e) => {
  e.preventDefault();
  const names = {};
  for (const input of $("seats").querySelectorAll("input")) names[input.dataset.seat] = input.value.trim();
  post("/api/names", names).then(refresh);
});
$("settings").addEventListener("submit", (e) => {
  e.preventDefault();
  post("/api/settings", {language: $("language").value, brightness: Number($("brightness").value),
    sound: $("sound").checked, timer_sound: $("timer_sound").value}).then(refresh);
});
$("timers").addEventListener("submit", (e) => {
  e.preventDefault();
  const preset = {mode: $("t-mode").value};
  if (preset.mode !== "off") preset.seconds = Number($("t-seconds").value);
  post("/api/timers", {game: $("t-game").value, preset});
});

(async () => {
  const fromQr = location.pathname.match(/^\/P\/(\d{12})$/);  // the QR code's link: /P/123456789012
  const code = fromQr ? fromQr[1] : new URLSearchParams(location.search).get("code");
  if (code) {
    history.replaceState(null, "", "/phone");  // the code is one-time: keep it out of the history
    await table();  // the table's language first: "Saved" is said in it
    await post("/api/pair", {code});
  }
  await refresh();
})();
