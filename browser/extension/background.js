// The extension's background: the focused window's active tab becomes this machine's current
// activity through the native host (handoffd's client), tabs continued from other machines open
// here, and the popup, the menus and the options reach the host through it.
import { debounce, shareable, webURL, parseExcludes } from "./policy.js";

const api = globalThis.browser ?? globalThis.chrome;
const HOST = "org.handoffd.browser";
/// Focus away from every browser window this long ends the tab's activity.
const AWAY_AFTER_MS = 60_000;

let port = null;
let retries = 0;
let settings = { enabled: true, exclude: [] };
/// What the host was last told ("tab" with its URL and title, or "away"), to tell only changes.
let told = null;
let awayTimer = null;
let nextID = 1;
const waiting = new Map();
let status = { daemon: "unknown" };

function connect() {
  port = api.runtime.connectNative(HOST);
  port.onMessage.addListener(fromHost);
  port.onDisconnect.addListener(() => {
    port = null;
    told = null;
    for (const w of waiting.values()) { clearTimeout(w.timer); w.reject(new Error("the native host stopped")); }
    waiting.clear();
    status = { daemon: "no-host", message: api.runtime.lastError?.message ?? "the native host is not installed or stopped" };
    setTimeout(connect, Math.min(30_000, 500 * 2 ** retries++));
  });
  port.postMessage({ type: "hello", version: api.runtime.getManifest().version });
  tellSoon();
}

function send(message) {
  if (port) port.postMessage(message);
}

/// A request to the host; its reply, or an error after 20 s.
function ask(message) {
  if (!port) return Promise.reject(new Error(status.message ?? "the native host is not running"));
  const id = nextID++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { waiting.delete(id); reject(new Error("the native host did not answer")); }, 20_000);
    waiting.set(id, { resolve, reject, timer });
    send({ ...message, id });
  });
}

function fromHost(message) {
  if (!message || typeof message !== "object") return;
  switch (message.type) {
    case "reply": {
      const w = waiting.get(message.id);
      if (!w) break;
      waiting.delete(message.id);
      clearTimeout(w.timer);
      w.resolve(message);
      break;
    }
    case "status":
      retries = 0;
      status = message;
      if (message.daemon === "up") { told = null; tellSoon(); refreshMenus(); }
      break;
    case "open-tab":
      openTab(message);
      break;
  }
}

/// A tab continued from another machine: only http(s) opens, in the window last focused.
async function openTab({ token, url }) {
  const safe = webURL(url);
  if (!safe) { send({ type: "opened", token, ok: false, reason: "not an http(s) address" }); return; }
  try {
    const tab = await api.tabs.create({ url: safe.href, active: true });
    if (tab.windowId !== undefined) await api.windows.update(tab.windowId, { focused: true });
    send({ type: "opened", token, ok: true });
  } catch (error) {
    send({ type: "opened", token, ok: false, reason: String(error) });
  }
}

async function currentTab() {
  const win = await api.windows.getLastFocused({});
  if (!win || !win.focused) return undefined;
  const [tab] = await api.tabs.query({ active: true, windowId: win.id });
  return tab;
}

/// Tells the host what is current now, if it changed.
async function tell() {
  let tab;
  try { tab = await currentTab(); } catch { tab = undefined; }
  if (tab === undefined) {
    // No browser window has focus: the tab stays current for a while (a glance elsewhere).
    if (awayTimer === null && told?.type === "tab") awayTimer = setTimeout(goAway, AWAY_AFTER_MS);
    return;
  }
  if (awayTimer !== null) { clearTimeout(awayTimer); awayTimer = null; }
  const share = shareable(tab, settings);
  const next = share ? { type: "tab", url: share.url, title: share.title } : { type: "away" };
  if (told && told.type === next.type && told.url === next.url && told.title === next.title) return;
  told = next;
  send(next);
}

function goAway() {
  awayTimer = null;
  if (told?.type === "away") return;
  told = { type: "away" };
  send(told);
}

const tellSoon = debounce(tell, 25);

api.tabs.onActivated.addListener(tellSoon);
api.tabs.onUpdated.addListener((_, change, tab) => { if (tab.active && (change.url || change.title)) tellSoon(); });
api.windows.onFocusChanged.addListener(tellSoon);
api.windows.onRemoved.addListener(tellSoon);

async function loadSettings() {
  const stored = await api.storage.local.get({ enabled: true, exclude: "" });
  settings = { enabled: stored.enabled !== false, exclude: parseExcludes(stored.exclude) };
}

api.storage.onChanged.addListener(async () => { await loadSettings(); told = null; tellSoon(); });

// The popup and the options page ask through here: one connection to the host.
api.runtime.onMessage.addListener((message, sender, respond) => {
  if (sender.id !== api.runtime.id) return false;
  handle(message).then(respond, (error) => respond({ ok: false, message: String(error.message ?? error) }));
  return true;
});

async function handle(message) {
  switch (message?.type) {
    case "status":
      return { ok: true, status, settings };
    case "list":
      return ask({ type: "list" });
    case "open":
      return ask({ type: "open", peer: String(message.peer), activity: String(message.activity) });
    case "send-current": {
      const tab = await currentTab() ?? (await api.tabs.query({ active: true, lastFocusedWindow: true }))[0];
      const url = webURL(tab?.url);
      if (!url) return { ok: false, message: "only http and https pages can be sent" };
      return ask({ type: "send", peer: String(message.peer), url: url.href, title: String(tab.title ?? "").slice(0, 1024) });
    }
    default:
      return { ok: false, message: "unknown request" };
  }
}

// A menu entry per paired machine: send this page, or this link, there.
async function refreshMenus() {
  let devices = [];
  try { devices = (await ask({ type: "list" })).devices ?? []; } catch { devices = []; }
  await api.contextMenus.removeAll();
  for (const device of devices.slice(0, 20)) {
    api.contextMenus.create({ id: "page:" + device.peer, title: `Send page to ${device.peer}`, contexts: ["page"] });
    api.contextMenus.create({ id: "link:" + device.peer, title: `Send link to ${device.peer}`, contexts: ["link"] });
  }
}

api.contextMenus.onClicked.addListener(async (info, tab) => {
  const [kind, ...rest] = String(info.menuItemId).split(":");
  const peer = rest.join(":");
  const url = webURL(kind === "link" ? info.linkUrl : tab?.url);
  if (!url) return;
  try { await ask({ type: "send", peer, url: url.href, title: kind === "link" ? url.href : String(tab?.title ?? "").slice(0, 1024) }); } catch { }
});

loadSettings().then(connect);
