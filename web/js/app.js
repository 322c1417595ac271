// The QuizDuel browser client's entry: wires the screens to the connection's life (sign-in with
// the stored token, reconnects, resuming the live game, server errors), then connects. The
// connection's resilience (reconnect, re-auth, resume, seq order) and the server's clock live in
// quizduel-client.js; what the page knows lives in store.js; the words in i18n.js and the
// catalogues in /i18n/; each screen in screens/ (and quizzes.js, progress.js) draws itself and
// names its route in router.js.
import "./i18n.js"; // first: the catalogue loads before any screen draws
import { client } from "./connection.js";
import { $, status, flash } from "./ui.js";
import { show, shown, go } from "./router.js";
import { state, signIn, setRoom } from "./store.js";
import { t } from "./i18n.js";
import { errorText } from "./errors.js";
import { endSession, authMode } from "./screens/auth.js";
import "./screens/home.js";
import { resumeDuel } from "./screens/duel.js";
import "./screens/end.js";
import { refreshChallenges } from "./screens/friends.js";
import { joinLinkedRoom } from "./screens/room.js";
import { loadBankPrefs } from "./bank-notes.js";
import "./screens/leaderboard.js";
import "./screens/history.js";
import "./screens/settings.js";
import "./quizzes.js";
import "./progress.js";
import "./goals.js";

window.quizduel = { client, state }; // handy in the console and for the browser tests (state is read-only)

client.on("open", () => {
  status("");
  // With a token the client signs in by itself (see "authenticated" and "signedout").
  if (!client.token && !shown("auth")) show("auth");
});

client.on("down", () => {
  if (state.player) status(t("app.reconnecting"));
});

// Signed in with the stored token (page load, and after every reconnect). The client
// resumes the live duel on its own: the missed events follow, in order.
client.on("authenticated", ({ player, duel }) => {
  signIn(player);
  // The room comes back as a `room` event right after, if I am still a member.
  setRoom(null);
  refreshChallenges();
  loadBankPrefs(); // my notes and colours per bank: the screens paint the banks with them
  if (duel && duel.state !== "finished") {
    resumeDuel(duel);
  } else if (state.duelId && client.liveDuelId === state.duelId) {
    // Our duel ended while we were away: its last events, `complete` included, are on the way.
  } else if (shown("duel") || shown("auth") || shown("matching")) {
    go("home");
  }
  if (!duel || duel.state === "finished") joinLinkedRoom();
});

// The stored token was refused (the session ended, or the account is disabled).
client.on("signedout", (error) => {
  endSession();
  status("");
  show("auth");
  authMode("login", error.code === "account_disabled" ? errorText(error) : t("auth.sessionEnded"));
});

// Errors the server sends on its own, e.g. bank_empty (the queue was dropped) or rate_limited.
client.on("error", (error) => {
  if (error.code === "bank_empty" && shown("matching")) go("home");
  flash(errorText(error));
});

client.connect();
