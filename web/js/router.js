// Which screen is on: showing one (and hiding the rest), the tab bar's highlighted tab, and
// going to a screen by name. During a game the tab bar and the bell are hidden: the only way
// out of a game is Forfeit (or End practice), so a tap cannot leave a live duel by mistake.
import { $ } from "./ui.js";
import { state } from "./store.js";

const screens = ["auth", "home", "friends", "room", "matching", "duel", "end", "leaderboard", "profile", "history", "mistakes",
  "quizzes", "quiz", "editor", "notifications"];

/** The tab each screen belongs to (the tab bar has five; the rest live under Profile). */
const TAB_OF = {
  home: "home", matching: "home", end: "home", quizzes: "quizzes", quiz: "quizzes", editor: "quizzes",
  friends: "friends", room: "friends", leaderboard: "leaderboard",
  profile: "profile", history: "profile", mistakes: "profile", notifications: "profile",
};

/** @type {Map<string, Function>} screen name -> the function that opens it (fetching what it shows) */
const openers = new Map();
let current = "auth";

export function show(name) {
  current = name;
  for (const s of screens) $(`screen-${s}`).hidden = s !== name;
  const inGame = name === "duel";
  const signedIn = !!state.player && name !== "auth";
  document.body.classList.toggle("in-game", inGame);
  document.body.classList.toggle("signed-in", signedIn);
  $("nav").hidden = !signedIn || inGame;
  $("bell").hidden = !signedIn || inGame;
  for (const tab of $("nav").querySelectorAll("[data-tab]")) {
    if (tab.dataset.tab === TAB_OF[name]) tab.setAttribute("aria-current", "page"); else tab.removeAttribute("aria-current");
  }
  const heading = $(`screen-${name}`).querySelector("h2");
  if (heading && name !== "duel") { heading.tabIndex = -1; heading.focus({ preventScroll: true }); }
  $("main").scrollTop = 0; // the screen scrolls, not the page (style.css: the app shell)
}

export function shown(name) { return !$(`screen-${name}`).hidden; }

/** The screen on show. */
export function currentScreen() { return current; }

// The note of the screen the player is on (home, the mistakes notebook, the end screen or a quiz's page).
export function visibleNote() {
  return ["home", "mistakes", "end", "quiz"].find((s) => shown(s));
}

/** A screen module names the function that opens it; `go(name)` and the [data-go] buttons call it. */
export function route(name, open) { openers.set(name, open); }

export function go(name) { return openers.get(name)(); }

/** Opens the screen on show again (after a language switch: its words are drawn anew). */
export function reopen() {
  return openers.has(current) ? go(current) : undefined;
}

for (const b of document.querySelectorAll("[data-go]")) {
  b.addEventListener("click", () => go(b.dataset.go));
}
