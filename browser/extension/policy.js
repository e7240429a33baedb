// What of a tab may leave the browser, decided without the browser: the extension's background
// uses it, and browser/tests/policy.test.mjs runs it under node.

/// The longest URL and title told to handoffd (an activity stays small; a longer one is not shared).
export const MAX_URL = 8192;
export const MAX_TITLE = 1024;

/// The URL if it may be shared or opened: http or https only, with a host, no credentials in it.
export function webURL(text) {
  if (typeof text !== "string" || text.length === 0 || text.length > MAX_URL) return null;
  let url;
  try { url = new URL(text); } catch { return null; }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (!url.hostname || url.username || url.password) return null;
  return url;
}

/// Whether `host` is one of `patterns` or below one ("example.org" also covers "www.example.org").
export function excluded(host, patterns) {
  const h = host.toLowerCase().replace(/\.$/, "");
  return patterns.some((p) => {
    const q = String(p).trim().toLowerCase().replace(/^\*\./, "").replace(/\.$/, "");
    return q.length > 0 && (h === q || h.endsWith("." + q));
  });
}

/// The exclude list as a person typed it: one site a line, blank lines and # comments ignored.
export function parseExcludes(text) {
  return String(text ?? "").split("\n").map((l) => l.replace(/#.*/, "").trim()).filter((l) => l.length > 0).slice(0, 1000);
}

/// What to tell handoffd of this tab, or null when nothing may be: sharing turned off, a private
/// window, not http(s), an excluded site.
export function shareable(tab, settings) {
  if (!tab || !settings.enabled || tab.incognito) return null;
  const url = webURL(tab.url);
  if (!url || excluded(url.hostname, settings.exclude ?? [])) return null;
  const title = typeof tab.title === "string" ? tab.title.slice(0, MAX_TITLE) : "";
  return { url: url.href, title };
}

/// Calls `fn` once `ms` after the last call (a person flipping through tabs tells the last one).
export function debounce(fn, ms, timers = globalThis) {
  let timer = null;
  return (...args) => {
    if (timer !== null) timers.clearTimeout(timer);
    timer = timers.setTimeout(() => { timer = null; fn(...args); }, ms);
  };
}
