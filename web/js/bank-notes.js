// A bank's private note and colour (docs/PROTOCOL.md, "Notes and colours per bank"): loaded
// into the store after each sign-in, edited in a dialog opened from the bank's card on Play.
// The note is the player's own (the server shows it to nobody else); the colour follows the
// bank on every screen (banks.js paints it, as a stripe or a dot, never behind text).
//
// A modal <dialog>: the page behind is inert; Escape and Cancel close it without saving, and
// the focus goes back to the button that opened it.
import { client, fitsInOneMessage } from "./connection.js";
import { $, el, note } from "./ui.js";
import { state, setBankPrefs, setBankPref } from "./store.js";
import { bankTitle, defaultBankColor } from "./banks.js";
import { t, onLanguage } from "./i18n.js";
import { errorText } from "./errors.js";

/** The longest note, in characters (Unicode code points: the server counts those). */
const NOTE_MAX = 1000; // Unicode code points, as the server counts; the server also caps the bytes (PROTOCOL.md: 3,000)

// A few colours to choose from, each named in words (the catalogue's colour.*), none light: each
// reads as a stripe on either theme (4.7:1 or more against white, 2.8:1 or more against the
// dark theme's cards). None is ever behind text.
const PALETTE = [
  ["red", "#dc2626"], ["orange", "#c2410c"], ["amber", "#a16207"], ["green", "#15803d"], ["teal", "#0f766e"],
  ["blue", "#2563eb"], ["violet", "#7c3aed"], ["pink", "#be185d"], ["slate", "#64748b"],
];

const view = { bank: null, returnTo: null };

/** My notes and colours from the server, into the store (after every sign-in). */
export async function loadBankPrefs() {
  try {
    setBankPrefs((await client.bankPrefs()).bank_prefs);
  } catch { /* the banks keep their own colours until the next sign-in */ }
}

const characters = (text) => [...text].length;

/** Opens the dialog of bank `slug`: its note and colour as saved. */
export function openBankNotes(slug) {
  const dialog = /** @type {HTMLDialogElement} */ ($("bank-dialog"));
  if (dialog.open) return;
  view.bank = slug;
  view.returnTo = document.activeElement;
  const pref = state.bankPref(slug);
  $("bank-note").value = pref?.note ?? "";
  $("bank-pref-error").textContent = "";
  render(pref?.color ?? "");
  dialog.showModal();
  $("bank-note").focus();
}

/** The dialog's words and swatches, with colour `chosen` ("" for the bank's own) ticked. */
function render(chosen) {
  const slug = view.bank;
  $("bank-dialog-title").textContent = t("bankPrefs.title", { bank: bankTitle(slug) });
  const options = [["", "bankPrefs.bankColor", defaultBankColor(slug)], ...PALETTE.map(([name, hex]) => [hex, `colour.${name}`, hex])];
  // A colour set elsewhere (another device's client) that is not in the palette stays choosable.
  if (chosen && !PALETTE.some(([, hex]) => hex === chosen)) options.push([chosen, "bankPrefs.ownColor", chosen]);
  $("bank-colors").replaceChildren(...options.map(([value, key, color]) => el("label", { class: "swatch", title: t(key) },
    el("input", { type: "radio", name: "bank-color", value, checked: value === chosen ? "" : null }),
    el("span", { class: "swatch-dot", style: `--swatch:${color}`, "aria-hidden": "true" }),
    el("span", { class: "visually-hidden" }, t(key)))));
  count();
}

function count() {
  const n = characters($("bank-note").value);
  $("bank-note-count").textContent = t("bankPrefs.count", { count: n, max: NOTE_MAX });
  $("bank-note-count").classList.toggle("error", n > NOTE_MAX);
}

function close() {
  // Saving redraws the bank cards: the button that opened the dialog may be a new one by now.
  const back = view.returnTo?.isConnected ? view.returnTo
    : document.querySelector(`[data-notes="${CSS.escape(view.bank ?? "")}"]`);
  view.returnTo = null;
  $("bank-dialog").close();
  if (back instanceof HTMLElement) back.focus({ preventScroll: true });
}

// The server's refusal as a sentence: `bad_request` names the field at the start of its message.
function saveError(error, length) {
  if (error.code === "bad_request" && /^note\b/.test(error.message)) return t("bankPrefs.tooLong", { count: length, max: NOTE_MAX });
  if (error.code === "bad_request" && /^color\b/.test(error.message)) return t("bankPrefs.badColor");
  return errorText(error);
}

$("bank-note").addEventListener("input", count);
$("bank-pref-cancel").addEventListener("click", close);
$("bank-pref-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const slug = view.bank;
  if (!slug) return;
  const text = $("bank-note").value;
  const picked = /** @type {HTMLInputElement | null} */ ($("bank-colors").querySelector("input:checked"));
  const fields = { note: text, color: picked?.value || null };
  const length = characters(text);
  const fail = (sentence) => { $("bank-pref-error").textContent = sentence; $("bank-note").focus(); };
  if (length > NOTE_MAX) { fail(t("bankPrefs.tooLong", { count: length, max: NOTE_MAX })); return; }
  if (!fitsInOneMessage("bank_pref_set", { bank: slug, ...fields })) { fail(t("bankPrefs.tooBig")); return; }
  $("bank-pref-save").disabled = true;
  try {
    setBankPref((await client.bankPrefSet(slug, fields)).bank_pref);
  } catch (error) {
    fail(saveError(error, length));
    return;
  } finally {
    $("bank-pref-save").disabled = false;
  }
  close();
  note("home-note", t("bankPrefs.saved", { bank: bankTitle(slug) }));
});
// Escape closes without saving, as Cancel does: the focus goes back too.
$("bank-dialog").addEventListener("cancel", (e) => { e.preventDefault(); close(); });
onLanguage(() => {
  if (!$("bank-dialog").open) return;
  const picked = /** @type {HTMLInputElement | null} */ ($("bank-colors").querySelector("input:checked"));
  render(picked?.value ?? "");
});
