// The page's one connection to the server: the client module, signed in with the stored token.
import { QuizDuelClient } from "./quizduel-client.js";

export const client = new QuizDuelClient(undefined, { token: localStorage.getItem("quizduel.token") });

client.on("token", (token) => {
  if (token) localStorage.setItem("quizduel.token", token);
  else localStorage.removeItem("quizduel.token");
});
