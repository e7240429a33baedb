// The person's switches: sharing on or off, and the sites never offered. Saved as they change.
const api = globalThis.browser ?? globalThis.chrome;
const enabled = document.getElementById("enabled");
const exclude = document.getElementById("exclude");

api.storage.local.get({ enabled: true, exclude: "" }).then((s) => {
  enabled.checked = s.enabled !== false;
  exclude.value = s.exclude;
});
enabled.addEventListener("change", () => api.storage.local.set({ enabled: enabled.checked }));
exclude.addEventListener("input", () => api.storage.local.set({ exclude: exclude.value.slice(0, 65536) }));
