// The page's one connection to the server: the client module, signed in with the stored token.
import { QuizDuelClient } from "./quizduel-client.js";

export const client = new QuizDuelClient(undefined, { token: localStorage.getItem("quizduel.token") });

client.on("token", (token) => {
  if (token) localStorage.setItem("quizduel.token", token);
  else localStorage.removeItem("quizduel.token");
});

/** The server's limit on one message (PROTOCOL.md, Transport): a longer one closes the connection (1009). */
const MAX_MESSAGE_BYTES = 4096;

/**
 * Whether request `op` with `fields` fits in one message. The server's limits keep a note within
 * one (1,000 characters, 3,000 bytes); a message over 4096 bytes would close the connection and
 * fail as `unavailable`, so a screen asks this first and says so in words.
 */
export function fitsInOneMessage(op, fields) {
  // The largest `ref` the client will plausibly reach, so that the estimate is never short.
  const message = JSON.stringify({ op, ref: 2 ** 31, ...fields });
  return new TextEncoder().encode(message).length <= MAX_MESSAGE_BYTES;
}
