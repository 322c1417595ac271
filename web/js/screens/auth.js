// The sign-in screen (log in, sign up) and signing out.
import { client } from "../connection.js";
import { $ } from "../ui.js";
import { show, go } from "../router.js";
import { signIn, signOut } from "../store.js";
import { stopClock } from "../clock.js";
import { refreshChallenges } from "./friends.js";
import { joinLinkedRoom } from "./room.js";

$("auth-form").addEventListener("submit", (e) => { e.preventDefault(); authenticate("login"); });
$("signup").addEventListener("click", () => authenticate("signup"));

async function authenticate(op) {
  const username = $("username").value.trim();
  const password = $("password").value;
  $("auth-error").textContent = "";
  try {
    const data = op === "signup" ? await client.signup(username, password) : await client.login(username, password);
    signIn(data.player); // the client keeps the token (see connection.js)
  } catch (error) {
    $("auth-error").textContent = error.message;
    return;
  }
  refreshChallenges();
  if (!joinLinkedRoom()) go("home");
}

$("logout").addEventListener("click", async () => {
  try { await client.logout(); } catch { /* the token is dropped anyway */ }
  endSession();
  show("auth");
});

// Signed out: forget the player and the game, and stop its timer.
export function endSession() {
  signOut();
  stopClock();
}
