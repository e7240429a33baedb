// What of a tab may leave the browser (extension/policy.js): `node --test browser/tests/`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { webURL, excluded, parseExcludes, shareable, debounce, MAX_URL } from "../extension/policy.js";

const on = { enabled: true, exclude: [] };

test("only http and https pages with a host are shared or opened", () => {
  for (const ok of ["https://example.org/a?b#c", "http://10.0.0.1:8080/"]) assert.ok(webURL(ok), ok);
  for (const no of ["file:///etc/passwd", "javascript:alert(1)", "data:text/html,x", "about:blank", "chrome://settings",
    "moz-extension://x/y", "ftp://example.org/", "https://user:pw@example.org/", "", "not a url", null, 42,
    "https://example.org/" + "a".repeat(MAX_URL)]) {
    assert.equal(webURL(no), null, String(no).slice(0, 40));
  }
});

test("an excluded site covers its subdomains and nothing else", () => {
  const list = parseExcludes("bank.example\n# a comment\n\n *.mail.example \n");
  assert.deepEqual(list, ["bank.example", "*.mail.example"]);
  assert.ok(excluded("bank.example", list));
  assert.ok(excluded("www.bank.example", list));
  assert.ok(excluded("MAIL.example", list));
  assert.ok(!excluded("notbank.example", list));
  assert.ok(!excluded("bank.example.org", list));
});

test("private windows, turned-off sharing, excluded sites and other schemes share nothing", () => {
  const tab = { url: "https://example.org/page", title: "A page", incognito: false };
  assert.deepEqual(shareable(tab, on), { url: "https://example.org/page", title: "A page" });
  assert.equal(shareable({ ...tab, incognito: true }, on), null);
  assert.equal(shareable(tab, { enabled: false, exclude: [] }), null);
  assert.equal(shareable(tab, { enabled: true, exclude: ["example.org"] }), null);
  assert.equal(shareable({ ...tab, url: "file:///home/me/notes.txt" }, on), null);
  assert.equal(shareable(undefined, on), null);
  assert.equal(shareable({ ...tab, title: "t".repeat(5000) }, on).title.length, 1024);
});

test("a burst of calls runs once, with the last arguments", async () => {
  const seen = [];
  const f = debounce((x) => seen.push(x), 10);
  for (let i = 0; i < 100; i++) f(i);
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(seen, [99]);
});
