// The sign-in screen and signing out. Two forms, so that Enter submits the one the player is
// in: Sign up first for a newcomer, Log in first on a device where someone signed in before.
import { client } from "../connection.js";
import { $ } from "../ui.js";
import { show, go } from "../router.js";
import { signIn, signOut } from "../store.js";
import { stopClock } from "../clock.js";
import { t, onLanguage } from "../i18n.js";
import { errorText } from "../errors.js";
import { refreshChallenges } from "./friends.js";
import { joinLinkedRoom } from "./room.js";
import { loadBankPrefs } from "../bank-notes.js";

const RETURNING = "quizduel.returning"; // someone signed in on this device before
const USERNAME = /^[A-Za-z0-9_.-]{3,32}$/;

let mode = localStorage.getItem(RETURNING) ? "login" : "signup";

/** Shows the sign-up or the log-in form (with `message` above it, e.g. why the session ended). */
export function authMode(next, message = "") {
  mode = next;
  $("signup-form").hidden = mode !== "signup";
  $("login-form").hidden = mode !== "login";
  $("auth-title").dataset.i18n = mode === "signup" ? "auth.signupTitle" : "auth.loginTitle";
  $("auth-title").textContent = t($("auth-title").dataset.i18n);
  $("auth-error").textContent = message;
}

authMode(mode);
onLanguage(() => authMode(mode, ""));

$("show-login").addEventListener("click", () => { authMode("login"); $("login-username").focus(); });
$("show-signup").addEventListener("click", () => { authMode("signup"); $("username").focus(); });

$("signup-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const username = $("username").value.trim();
  const password = $("password").value;
  // The server's rules (PROTOCOL.md, signup), said before asking it.
  if (!USERNAME.test(username)) { fail(t("auth.badUsername"), "username"); return; }
  if (password.length < 8 || password.length > 256) { fail(t("error.weak_password"), "password"); return; }
  authenticate("signup", username, password);
});

$("login-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const username = $("login-username").value.trim();
  const password = $("login-password").value;
  if (!username || !password) { fail(t("auth.fillBoth"), username ? "login-password" : "login-username"); return; }
  authenticate("login", username, password);
});

function fail(text, field) {
  $("auth-error").textContent = text;
  if (field) $(field).focus();
}

async function authenticate(op, username, password) {
  $("auth-error").textContent = "";
  const button = $(op);
  button.disabled = true;
  try {
    const data = op === "signup" ? await client.signup(username, password) : await client.login(username, password);
    signIn(data.player); // the client keeps the token (see connection.js)
    localStorage.setItem(RETURNING, "1");
  } catch (error) {
    fail(errorText(error));
    return;
  } finally {
    button.disabled = false;
  }
  refreshChallenges();
  loadBankPrefs();
  if (!joinLinkedRoom()) go("home");
}

$("logout").addEventListener("click", async () => {
  try { await client.logout(); } catch { /* the token is dropped anyway */ }
  endSession();
  authMode("login");
  show("auth");
});

// Signed out: forget the player and the game, and stop its timer.
export function endSession() {
  signOut();
  stopClock();
}
