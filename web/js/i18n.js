// The page's words: one catalogue per language in /i18n/<language>.json (English, Simplified
// Chinese, German). The language comes from the player's choice on this device (localStorage),
// else from the browser's languages, else English. Every text the page shows goes through
// `t(key, vars)`; index.html holds no words, only data-i18n attributes filled from here.
//
// Tests/web/test_catalogues.py checks that every language has every key (with the same
// placeholders) and that the code asks only for keys that exist.

/** The languages the client speaks, by their catalogue's file name. */
export const LANGUAGES = ["en", "zh-Hans", "de"];
const STORED = "quizduel.lang";

/** The language to use: a stored choice, else the first of the browser's that we speak. */
export function pickLanguage(stored, preferred) {
  if (LANGUAGES.includes(stored)) return stored;
  for (const tag of preferred) {
    const lower = String(tag).toLowerCase();
    // Traditional Chinese readers get Simplified: closer to them than English.
    if (lower === "zh" || lower.startsWith("zh-")) return "zh-Hans";
    if (lower === "de" || lower.startsWith("de-")) return "de";
    if (lower === "en" || lower.startsWith("en-")) return "en";
  }
  return "en";
}

let current = "en";
/** @type {Record<string, string | Record<string, string>>} */
let strings = {};
/** English: what a key missing from another catalogue falls back to (the test keeps this empty). */
let fallback = {};
let plurals = new Intl.PluralRules("en");
const listeners = new Set();

async function fetchCatalogue(language) {
  const response = await fetch(`/i18n/${language}.json`);
  if (!response.ok) throw new Error(`catalogue ${language}: HTTP ${response.status}`);
  return response.json();
}

/** The language on show (a LANGUAGES entry). */
export function language() { return current; }

/** Whether the catalogue has `key` (e.g. an error code's sentence). */
export function has(key) { return key in strings || key in fallback; }

/**
 * The text of `key` in the player's language, with `{name}` placeholders filled from `vars`.
 * A key whose entry is an object has plural forms (Intl.PluralRules categories: "one",
 * "other", …), chosen by `vars.count`.
 * @param {string} key
 * @param {Record<string, string | number>} [vars]
 */
export function t(key, vars = {}) {
  let entry = strings[key] ?? fallback[key];
  if (entry === undefined) return key;
  if (typeof entry === "object") entry = entry[plurals.select(Number(vars.count ?? 0))] ?? entry.other;
  // Numbers stay plain ("1500", not "1,500"): scores and ratings read like the game's own numbers.
  return entry.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

/** Fills the static text of `root` from its data-i18n (text) and data-i18n-attr ("attr:key;attr:key") attributes. */
export function applyStatic(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of node.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":");
      if (attr && key) node.setAttribute(attr.trim(), t(key.trim()));
    }
  }
}

/** Calls `callback(language)` after each switch of language. */
export function onLanguage(callback) {
  listeners.add(callback);
  return () => listeners.delete(callback);
}

/**
 * Switches to `lang` (remembered on this device unless `remember` is false), refills the
 * static text and tells the screens. Returns whether it switched.
 */
export async function setLanguage(lang, remember = true) {
  if (!LANGUAGES.includes(lang)) return false;
  let loaded;
  try {
    loaded = lang === "en" ? fallback : await fetchCatalogue(lang);
  } catch {
    return false; // keep the language on show
  }
  current = lang;
  strings = loaded;
  plurals = new Intl.PluralRules(lang);
  document.documentElement.lang = lang;
  if (remember) localStorage.setItem(STORED, lang);
  applyStatic();
  for (const callback of listeners) callback(lang);
  return true;
}

/** Fills a language picker: each language named in its own words. */
export function fillLanguageSelect(select) {
  select.replaceChildren(...LANGUAGES.map((code) => {
    const option = document.createElement("option");
    option.value = code;
    option.lang = code;
    option.textContent = t(`language.${code}`);
    return option;
  }));
  select.value = current;
}

// Loaded before any screen draws (modules importing this one wait for it).
try {
  fallback = await fetchCatalogue("en");
} catch (error) {
  console.error(error); // keys show as themselves; the game still works
}
strings = fallback;
const preferred = navigator.languages?.length ? navigator.languages : [navigator.language ?? "en"];
await setLanguage(pickLanguage(localStorage.getItem(STORED), preferred), false);
