// Which screen is on: showing one (and hiding the rest), and going to a screen by name.
import { $ } from "./ui.js";
import { state } from "./store.js";

const screens = ["auth", "home", "friends", "room", "matching", "duel", "end", "leaderboard", "profile", "history", "mistakes",
  "quizzes", "quiz", "editor", "notifications"];

/** @type {Map<string, Function>} screen name -> the function that opens it (fetching what it shows) */
const openers = new Map();

export function show(name) {
  for (const s of screens) $(`screen-${s}`).hidden = s !== name;
  $("nav").hidden = !state.player || name === "auth";
  const heading = $(`screen-${name}`).querySelector("h2");
  if (heading && name !== "duel") { heading.tabIndex = -1; heading.focus({ preventScroll: true }); }
}

export function shown(name) { return !$(`screen-${name}`).hidden; }

// The note of the screen the player is on (home, the mistakes notebook, the end screen or a quiz's page).
export function visibleNote() {
  return ["home", "mistakes", "end", "quiz"].find((s) => shown(s));
}

/** A screen module names the function that opens it; `go(name)` and the nav's [data-go] buttons call it. */
export function route(name, open) { openers.set(name, open); }

export function go(name) { return openers.get(name)(); }

for (const b of document.querySelectorAll("[data-go]")) {
  b.addEventListener("click", () => go(b.dataset.go));
}
