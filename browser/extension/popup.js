// The toolbar popup: each present paired machine with the tab it has open (Safari's "tabs from
// other devices"), one click to open it here; and this tab sent to a machine. Titles and
// addresses are shown as text, never as markup.
const api = globalThis.browser ?? globalThis.chrome;
const message = document.getElementById("message");

function entry(label, detail, onClick) {
  const li = document.createElement("li");
  const button = document.createElement("button");
  button.textContent = label;
  if (detail) {
    const small = document.createElement("div");
    small.className = "url";
    small.textContent = detail;
    button.append(small);
  }
  button.addEventListener("click", onClick);
  li.append(button);
  return li;
}

function say(text) { message.textContent = text; message.hidden = !text; }

async function show() {
  const reply = await api.runtime.sendMessage({ type: "list" }).catch((e) => ({ ok: false, message: String(e.message ?? e) }));
  const devices = document.getElementById("devices");
  const send = document.getElementById("send");
  devices.replaceChildren();
  send.replaceChildren();
  if (!reply?.ok) { say(reply?.message ?? "handoffd did not answer"); return; }
  const list = reply.devices ?? [];
  say(list.length === 0 ? "No paired machine is here. Pair one with `handoffctl pair`." : "");
  for (const device of list) {
    const h = document.createElement("h2");
    h.textContent = device.peer;
    const ul = document.createElement("ul");
    for (const tab of device.tabs ?? []) {
      ul.append(entry(tab.title || tab.url, tab.url, async () => {
        say("Opening…");
        const done = await api.runtime.sendMessage({ type: "open", peer: device.peer, activity: tab.activity });
        if (done?.ok) window.close(); else say(done?.message ?? "it did not open");
      }));
    }
    if ((device.tabs ?? []).length === 0) {
      const p = document.createElement("p");
      p.textContent = "No tab open there.";
      ul.append(p);
    }
    devices.append(h, ul);
    send.append(entry(device.peer, null, async () => {
      say("Sending…");
      const done = await api.runtime.sendMessage({ type: "send-current", peer: device.peer });
      if (done?.ok) window.close(); else say(done?.message ?? "it was not sent");
    }));
  }
}

// Sharing on or off, here as in the options: installed with the package it is on in every
// browser, so the popup shows it where the person looks.
const sharing = document.getElementById("sharing");
api.storage.local.get({ enabled: true }).then((s) => { sharing.checked = s.enabled !== false; });
sharing.addEventListener("change", () => api.storage.local.set({ enabled: sharing.checked }));

show();
