// Every error the server (or the connection) can answer with, as a sentence in the player's
// language: the catalogue's "error.<code>" (docs/PROTOCOL.md lists the codes; the client module
// adds `timeout` and `unavailable`). The server's own message is English and meant for
// developers: it is logged, never shown.
import { t, has } from "./i18n.js";

/** @param {{code?: string, message?: string}} error */
export function errorText(error) {
  const code = error?.code ?? "";
  if (error?.message) console.info(`quizduel: ${code}: ${error.message}`);
  return has(`error.${code}`) ? t(`error.${code}`) : t("error.generic");
}
