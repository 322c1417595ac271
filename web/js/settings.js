// The player's settings on this device, remembered in localStorage: how to answer (on tap, or
// tap to select and then Submit, as the class quiz app does) and whether sounds play.
const KEYS = { answerMode: "quizduel.answerMode", muted: "quizduel.muted" };

export const settings = {
  /** "tap": a tap answers at once; "confirm": a tap selects, Submit answers. */
  get answerMode() { return localStorage.getItem(KEYS.answerMode) === "confirm" ? "confirm" : "tap"; },
  set answerMode(mode) { localStorage.setItem(KEYS.answerMode, mode === "confirm" ? "confirm" : "tap"); },
  get muted() { return localStorage.getItem(KEYS.muted) === "1"; },
  set muted(on) { localStorage.setItem(KEYS.muted, on ? "1" : "0"); },
};
