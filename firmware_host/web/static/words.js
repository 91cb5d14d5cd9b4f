// The page's words in the table's languages (the panel's own catalogue is on the device).
"use strict";
const WORDS = {
  en: {board: "Scoreboard", history: "History", rules: "Rules", phone: "Phone", live: "live", offline: "reconnecting",
    noGame: "No game in play", over: "Game over", winners: "Winners", everyone: "Everyone lost", ended: "Ended early",
    game: "Game", player: "Player", all: "all", date: "Date", duration: "Duration", players: "Players",
    plays: "Plays", wins: "Wins", winRate: "Win rate", avg: "Average", best: "Best", turn: "Avg turn",
    unknownDate: "date unknown (clock not set)", phoneDate: "date from a phone", bgstats: "Open in BG Stats", filter: "Show",
    downloads: "Download", stats: "Per player and game", plotsTitle: "Plots", last: "What happened",
    noPlays: "No finished games yet", noTurns: "No turn times yet: they are kept when a turn timer runs",
    paired: "This phone is paired: it may change names and settings.", unpaired: "Read only. To change names or settings, pair this phone: on the table, Main menu → Phone, then scan the code or type its digits here.",
    code: "Code", pair: "Pair", names: "Seat names", save: "Save", settings: "Settings", language: "Language",
    brightness: "Brightness", sound: "Sound", beeps: "Timer beeps", timers: "Turn timer", mode: "Mode", seconds: "Seconds",
    saved: "Saved", on: "on", off: "off", language_en: "English", language_de: "Deutsch",
    beeps_all: "every beep", beeps_timeout: "only when time is up", beeps_off: "none",
    mode_off: "no timer", mode_turn: "per turn", mode_hourglass: "hourglass", mode_bank: "time bank",
    mode_countup: "count up", voice: "Voice", volume: "Voice volume", calls: "Voice calls", sayAs: "said as",
    calls_all: "everything", calls_results: "results only", calls_turns: "turns only", calls_beeps: "beeps only", allGames: "every game"},
  de: {board: "Punktestand", history: "Verlauf", rules: "Regeln", phone: "Handy", live: "live", offline: "verbinde neu",
    noGame: "Kein Spiel läuft", over: "Spiel vorbei", winners: "Gewonnen", everyone: "Alle verloren", ended: "Vorzeitig beendet",
    game: "Spiel", player: "Spieler", all: "alle", date: "Datum", duration: "Dauer", players: "Spieler",
    plays: "Partien", wins: "Siege", winRate: "Siegquote", avg: "Schnitt", best: "Bestwert", turn: "Zug im Schnitt",
    unknownDate: "Datum unbekannt (Uhr nicht gestellt)", phoneDate: "Datum von einem Handy", bgstats: "In BG Stats öffnen", filter: "Zeigen",
    downloads: "Herunterladen", stats: "Je Spieler und Spiel", plotsTitle: "Diagramme", last: "Was geschah",
    noPlays: "Noch keine beendeten Spiele", noTurns: "Noch keine Zugzeiten: sie werden gespeichert, wenn ein Zugtimer läuft",
    paired: "Dieses Handy ist gekoppelt: es darf Namen und Einstellungen ändern.", unpaired: "Nur lesen. Um Namen oder Einstellungen zu ändern, dieses Handy koppeln: am Tisch Hauptmenü → Handy, dann den Code scannen oder die Ziffern hier eingeben.",
    code: "Code", pair: "Koppeln", names: "Namen der Plätze", save: "Speichern", settings: "Einstellungen", language: "Sprache",
    brightness: "Helligkeit", sound: "Ton", beeps: "Timer-Töne", timers: "Zugtimer", mode: "Modus", seconds: "Sekunden",
    saved: "Gespeichert", on: "an", off: "aus", language_en: "English", language_de: "Deutsch",
    beeps_all: "jeder Ton", beeps_timeout: "nur wenn die Zeit um ist", beeps_off: "keine",
    mode_off: "kein Timer", mode_turn: "je Zug", mode_hourglass: "Sanduhr", mode_bank: "Zeitkonto",
    mode_countup: "aufwärts zählen", voice: "Stimme", volume: "Lautstärke der Stimme", calls: "Ansagen", sayAs: "gesprochen als",
    calls_all: "alles", calls_results: "nur Ergebnisse", calls_turns: "nur Züge", calls_beeps: "nur Pieptöne", allGames: "jedes Spiel"},
};
// The table's short lines, which its 128×64 panel needs, spelled out where the page has room: per
// language, the line as the game's catalogue says it (games/*/locale) and the page's sentence.
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
const SPELLED = {
  en: [[/^(.+) R(\d+) D(\d+) left$/, (who, r, d) =>
    `${who} has ${plural(+r, "rascal", "rascals")} and ${plural(+d, "diver", "divers")} left`]],
  de: [[/^(.+) hat R(\d+) K(\d+)$/, (who, r, d) =>
    `${who} hat noch ${plural(+r, "Rabauke", "Rabauken")} und ${plural(+d, "Kunstspringer", "Kunstspringer")}`]],
};
function spelled(line) {
  for (const [pattern, words] of SPELLED[LANG] || []) {
    const m = pattern.exec(line);
    if (m) return words(...m.slice(1));
  }
  return line;
}
let LANG = "en";
function w(key) { return (WORDS[LANG] || WORDS.en)[key] || WORDS.en[key] || key; }
function el(tag, attrs, ...kids) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const kid of kids) node.append(kid);
  return node;
}
function nav(active) {
  const bar = document.getElementById("nav");
  bar.replaceChildren(...[["/", "board"], ["/history", "history"], ["/rules", "rules"], ["/phone", "phone"]].map(
    ([href, key]) => el("a", {href, text: w(key), ...(key === active ? {"aria-current": "page"} : {})})));
  bar.append(el("span", {id: "live", class: "live"}));
}
async function table() {
  const r = await fetch("/api/state", {cache: "no-store"});
  const state = await r.json();
  LANG = state.language || "en";
  document.documentElement.lang = LANG;
  return state;
}
function clock(seconds) {
  if (seconds == null) return "";
  const s = Math.round(seconds), m = Math.floor(s / 60);
  return m >= 60 ? `${Math.floor(m / 60)}:${String(m % 60).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}` : `${m}:${String(s % 60).padStart(2, "0")}`;
}
// A paired phone gives the table the time: a table whose clock never synced dates its games by it.
fetch("/api/me", {cache: "no-store"}).then((r) => r.json()).then((me) => {
  if (!me.paired) return;
  fetch("/api/clock", {method: "POST", headers: {"Content-Type": "application/json"}, credentials: "same-origin",
    body: JSON.stringify({now_ms: Date.now()})});
}).catch(() => {});
