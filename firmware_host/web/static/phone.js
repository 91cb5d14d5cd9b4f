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

// What the table holds, shown again. The names form is rebuilt only when ``seats`` and nothing has
// been typed into it since it was last saved: a refresh that comes meanwhile (a settings save, a
// pairing's answer arriving late) must not wipe a name half-written.
async function refresh(seats = true) {
  const state = await table();
  nav("phone");
  for (const [id, key] of [["h", "phone"], ["l-code", "code"], ["b-pair", "pair"], ["l-names", "names"], ["b-names", "save"],
    ["l-settings", "settings"], ["l-language", "language"], ["l-brightness", "brightness"], ["l-sound", "sound"],
    ["l-beeps", "beeps"], ["l-voice", "voice"], ["l-volume", "volume"], ["l-calls", "calls"], ["b-settings", "save"], ["l-timers", "timers"], ["l-seconds", "seconds"], ["b-timers", "save"]]) {
    $(id).textContent = w(key);
  }
  for (const option of document.querySelectorAll("#timer_sound option, #t-mode option, #voice_calls option")) {
    const kind = {"t-mode": "mode", voice_calls: "calls"}[option.parentElement.id] || "beeps";
    option.textContent = w(`${kind}_${option.value}`);
  }
  const me = await fetch("/api/me", {cache: "no-store"}).then((r) => r.json());
  $("status").textContent = w(me.paired ? "paired" : "unpaired");
  $("pair").hidden = me.paired;
  $("paired").hidden = !me.paired;
  const s = state.settings || {};
  const sayAs = s.say_as || {};
  if (seats && !$("seats").dataset.typed) $("seats").replaceChildren(...Object.entries(state.seats).map(([seat, name]) =>
    el("label", {}, `${seat.toUpperCase()} `, el("input", {name: seat, value: name, maxlength: "20", "data-seat": seat}),
      ` ${w("sayAs")} `, el("input", {value: sayAs[name] || "", maxlength: "60", "data-said": name}))));
  $("language").value = s.language || "en";
  $("brightness").value = s.brightness || 200;
  $("sound").checked = !!s.sound;
  $("timer_sound").value = s.timer_sound || "all";
  $("voice").checked = !!s.voice;
  $("voice_volume").value = s.voice_volume ?? 100;
  $("voice_calls").value = s.voice_calls || "all";
  const games = await fetch("/api/games").then((r) => r.json());
  $("t-game").replaceChildren(...games.games.map((g) => el("option", {value: g.id, text: g.title})));
  $("calls_game").replaceChildren(el("option", {value: "", text: w("allGames")}),
    ...games.games.map((g) => el("option", {value: g.id, text: g.title})));
  $("calls_game").onchange = () => {
    const game = $("calls_game").value;
    $("voice_calls").value = (game && (s.voice_game_calls || {})[game]) || s.voice_calls || "all";
  };
  if (state.game) $("t-game").value = state.game;
  document.body.dataset.shown = String(Number(document.body.dataset.shown || 0) + 1);  // how often shown (tests wait on it)
}

$("seats").addEventListener("input", () => { $("seats").dataset.typed = "1"; });
$("pair").addEventListener("submit", async (e) => {
  e.preventDefault();
  if (await post("/api/pair", {code: $("code").value.trim()})) refresh();
});
$("names").addEventListener("submit", (e) => {
  e.preventDefault();
  const names = {};
  const sayAs = {};
  for (const input of $("seats").querySelectorAll("input[data-seat]")) names[input.dataset.seat] = input.value.trim();
  for (const input of $("seats").querySelectorAll("input[data-said]")) {
    const name = names[input.previousElementSibling?.dataset.seat] || input.dataset.said;
    sayAs[name] = input.value.trim() || null;
  }
  post("/api/names", names).then((ok) => ok && post("/api/settings", {say_as: sayAs})).then((ok) => {
    if (ok) delete $("seats").dataset.typed;  // saved: the form may show the table's names again
    refresh();
  });
});
$("settings").addEventListener("submit", (e) => {
  e.preventDefault();
  const settings = {language: $("language").value, brightness: Number($("brightness").value),
    sound: $("sound").checked, timer_sound: $("timer_sound").value, voice: $("voice").checked,
    voice_volume: Number($("voice_volume").value)};
  const game = $("calls_game").value;  // the calls of one game, or of every game
  if (game) settings.voice_game_calls = {[game]: $("voice_calls").value};
  else settings.voice_calls = $("voice_calls").value;
  post("/api/settings", settings).then(() => refresh(false));
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
