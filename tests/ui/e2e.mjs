// Cairn's web UI end to end, in Debian's headless Chromium driven by
// playwright-core: every flow of the issue, axe-core on every screen (no
// serious or critical violation), no Content-Security-Policy violation,
// screenshots at desktop (1280×800) and phone (390 px) widths.
// Run by scripts/ui-test.sh, which starts the server and makes the keys.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const URL = process.env.CAIRN_UI_URL;
const ADMIN = process.env.CAIRN_UI_ADMIN;
const READER = process.env.CAIRN_UI_READ;
const OTHER = process.env.CAIRN_UI_OTHER;
const SHOTS = process.env.CAIRN_UI_SCREENSHOTS;
if (!URL || !ADMIN || !READER || !OTHER || !SHOTS) {
  console.error("run through scripts/ui-test.sh");
  process.exit(2);
}

let failures = 0;
const problems = [];
function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}
async function step(name, fn) {
  const t = Date.now();
  try {
    await fn();
    console.log(`ok   ${name} (${Date.now() - t} ms)`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack : e}`);
  }
}

async function rest(key, method, path, body) {
  const r = await fetch(URL + "/v1" + path, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return JSON.parse(text);
}

// Axe on the page as it is: serious and critical violations fail.
async function axe(page, screen) {
  await page.evaluate(AXE);
  const result = await page.evaluate(() =>
    window.axe.run(document, { resultTypes: ["violations"] }));
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  for (const v of bad) {
    console.log(`  axe ${screen}: ${v.impact} ${v.id}: ${v.help}`);
    for (const n of v.nodes.slice(0, 3)) console.log(`    ${n.target.join(" ")}: ${n.failureSummary}`);
  }
  check(bad.length === 0, `${screen}: ${bad.length} serious or critical accessibility violations`);
}

async function shot(page, name) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

function watch(page, label) {
  page.on("console", (m) => {
    const text = m.text();
    if (/Content Security Policy|Refused to/.test(text)) problems.push(`${label}: ${text}`);
  });
  page.on("pageerror", (e) => problems.push(`${label}: page error ${e.message}`));
}

async function signIn(context, key, label) {
  const page = await context.newPage();
  watch(page, label);
  await page.goto(URL + "/ui");
  check(page.url().endsWith("/ui/login"), `signed out, /ui goes to sign-in (at ${page.url()})`);
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(URL + "/ui");
  return page;
}

// playwright gives every launch a fresh profile of its own (it refuses
// --user-data-dir).
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
  ],
});

// The memories the flows work on, written over REST.
const seeded = {};
await step("seed memories over REST (two tenants)", async () => {
  seeded.deploy = (await rest(ADMIN, "POST", "/memories", {
    content: "The deploy pipeline runs on GitHub Actions", type: "fact", project: "atlas", tags: ["ci"],
  })).id;
  seeded.db = (await rest(ADMIN, "POST", "/memories", {
    content: "Use PostgreSQL 16 for the atlas project", type: "decision", project: "atlas",
  })).id;
  await rest(ADMIN, "POST", "/memories", { content: "Always run the tests before pushing", type: "rule" });
  seeded.html = (await rest(ADMIN, "POST", "/memories", {
    content: "<script>window.__pwned = 1</script>\n\nA note with <img src=x onerror=\"window.__pwned = 2\"> and **bold** text",
    project: "atlas",
  })).id;
  seeded.other = (await rest(OTHER, "POST", "/memories", {
    content: "Bob's confidential roadmap for project zephyr", project: "atlas",
  })).id;
});

const desktop = await browser.newContext({ viewport: { width: 1280, height: 800 } });
let page;

await step("sign in with an API key: a Secure, HttpOnly, SameSite=Strict cookie", async () => {
  const login = await desktop.newPage();
  watch(login, "login");
  await login.goto(URL + "/ui/login");
  await axe(login, "sign-in");
  await shot(login, "desktop-sign-in");
  await login.getByLabel("API key").fill("cairn_wrong_key");
  await login.getByRole("button", { name: "Sign in" }).click();
  check(await login.getByRole("alert").isVisible(), "a wrong key is refused");
  await login.close();
  page = await signIn(desktop, ADMIN, "desktop");
  const cookies = await desktop.cookies();
  const c = cookies.find((c) => c.name === "cairn_session");
  check(c, "a session cookie");
  check(c.httpOnly && c.secure && c.sameSite === "Strict" && c.path === "/ui", JSON.stringify(c));
  check(!cookies.some((c) => c.value.includes(ADMIN)), "the key is not in a cookie");
});

await step("overview", async () => {
  await page.goto(URL + "/ui");
  check(await page.getByRole("heading", { name: "Overview" }).isVisible(), "heading");
  check((await page.textContent("main")).includes("memories"), "counts");
  await page.locator("#growth svg rect.bar").first().waitFor();
  check(await page.locator("#growth svg rect.bar").count() === 12, "the growth chart, loaded by htmx");
  await axe(page, "overview");
  await shot(page, "desktop-overview");
});

await step("search with explain: score bars for every factor", async () => {
  await page.goto(URL + "/ui/memories");
  await axe(page, "memory browser");
  await page.keyboard.press("/");
  check(await page.evaluate(() => document.activeElement.id === "q"), "/ focuses the search");
  await page.keyboard.type("deploy pipeline");
  // htmx searches as the user types.
  await page.waitForURL(/q=deploy/);
  await page.locator("details.explain").first().waitFor();
  await page.locator("details.explain summary").first().click();
  const explain = await page.locator("details.explain").first().textContent();
  for (const f of ["BM25 rank", "vector rank", "cosine", "fusion", "boost", "decay", "scope", "weight"]) {
    check(explain.includes(f), `explain shows ${f}`);
  }
  check(await page.locator("details.explain meter").count() >= 6, "bars");
  await axe(page, "search results");
  await shot(page, "desktop-search-explain");
});

await step("keyboard: j/k move through rows, Enter opens", async () => {
  await page.locator("body").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("j");
  check(await page.locator("tr.row.current").count() === 1, "j marks a row");
  await page.keyboard.press("Enter");
  await page.waitForURL(/\/ui\/memories\/[0-9a-f-]+$/);
});

await step("open a memory, edit it (e), see the new version in history", async () => {
  await page.goto(URL + "/ui/memories/" + seeded.deploy);
  await axe(page, "memory page");
  await shot(page, "desktop-memory");
  await page.keyboard.press("e");
  check(await page.evaluate(() => document.activeElement.id === "content"), "e focuses the editor");
  await page.fill("#content", "The deploy pipeline runs on Buildkite");
  await page.getByRole("button", { name: "Save" }).click();
  await page.waitForLoadState();
  check((await page.textContent("article.content")).includes("Buildkite"), "new content");
  check((await page.locator("ins").first().textContent()).includes("Buildkite"), "the diff");
  check((await page.textContent("ol.timeline")).includes("v2 updated"), "v2 in history");
});

await step("revert to version 1 (confirmed)", async () => {
  page.once("dialog", (d) => d.accept());
  await page.getByRole("button", { name: "Revert to v1" }).click();
  await page.waitForLoadState();
  check((await page.textContent("article.content")).includes("GitHub Actions"), "restored");
  check((await page.textContent("ol.timeline")).includes("v3 reverted"), "v3 reverted");
});

await step("supersede", async () => {
  await page.fill("#s-content", "The deploy pipeline moved to GitLab CI");
  await page.getByRole("button", { name: "Supersede" }).click();
  await page.waitForLoadState();
  check((await page.textContent("article.content")).includes("GitLab CI"), "the new memory");
  const middle = page.url();
  await page.fill("#s-content", "The deploy pipeline moved to GitLab CI runners");
  await page.getByRole("button", { name: "Supersede" }).click();
  await page.waitForLoadState();
  const newest = page.url();
  await page.goto(middle);
  const chain = page.locator("ol.chain li");
  check(await chain.count() === 3, "the whole chain, both ways");
  check((await chain.nth(1).textContent()).includes("(this memory)"), "this memory in the middle");
  check((await chain.nth(0).textContent()).includes("GitHub Actions") && (await chain.nth(2).textContent()).includes("runners"), "oldest first");
  await shot(page, "desktop-supersede-chain");
  seeded.newer = page.url().split("/").pop();
  seeded.newest = newest.split("/").pop();
});

await step("forget, only once confirmed", async () => {
  page.once("dialog", (d) => d.dismiss());
  await page.getByRole("button", { name: "Forget this memory" }).click();
  await page.waitForTimeout(300);
  check(await page.locator("article.content").count() === 1, "dismissed: still there");
  page.once("dialog", (d) => d.accept());
  await page.getByRole("button", { name: "Forget this memory" }).click();
  await page.waitForLoadState();
  check((await page.textContent("main")).includes("was forgotten"), "forgotten");
  const r = await fetch(`${URL}/v1/memories/${seeded.newer}`, { headers: { authorization: `Bearer ${ADMIN}` } });
  check(r.status === 404, "gone over REST too");
});

await step("memory content with <script> and <img onerror> renders inert", async () => {
  await page.goto(URL + "/ui/memories/" + seeded.html);
  await page.waitForTimeout(200);
  check(await page.evaluate(() => window.__pwned === undefined), "no script ran");
  check(await page.locator("article.content img").count() === 0, "no image element");
  check(await page.locator("article.content script").count() === 0, "no script element");
  check((await page.textContent("article.content")).includes("<script>"), "shown as text");
  check(await page.locator("article.content strong").count() === 1, "Markdown rendered");
});

await step("import a file with one bad line: progress and the line's error", async () => {
  await page.goto(URL + "/ui/transfer");
  await axe(page, "import/export");
  const lines = [
    JSON.stringify({ content: "Imported: the staging database is called atlas-stg", project: "atlas" }),
    "this line is not JSON",
    JSON.stringify({ content: "Imported: on-call rotates every Monday" }),
  ].join("\n") + "\n";
  await page.setInputFiles("#import-file", { name: "memories.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(lines) });
  // What the status line says as the server's progress comes in.
  await page.evaluate(() => {
    window.__importStatus = [];
    new MutationObserver(() => window.__importStatus.push(document.getElementById("import-result").textContent))
      .observe(document.getElementById("import-result"), { subtree: true, childList: true, characterData: true });
  });
  await page.getByRole("button", { name: "Import" }).click();
  await page.getByText(/Imported 2/).waitFor();
  const said = await page.evaluate(() => window.__importStatus);
  check(said.some((t) => /2 memories written, 1 bad lines so far/.test(t)), "the server's progress: " + JSON.stringify(said));
  check((await page.textContent("#import-result")).includes("line 2:"), "the bad line's number");
  check(await page.locator(".import-errors li").count() === 1, "the bad line shown once");
  check(await page.evaluate(() => document.getElementById("import-progress").value) === 100, "progress");
  await shot(page, "desktop-import");
});

await step("export: a download of the tenant's memories only", async () => {
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export")]);
  const text = readFileSync(await download.path(), "utf8");
  check(text.includes("atlas-stg"), "the imported memory");
  check(!text.includes("zephyr"), "not another tenant's");
});

await step("keys: create (shown once, copy), list, revoke", async () => {
  await page.goto(URL + "/ui/keys");
  await axe(page, "keys");
  await page.getByLabel("Label").fill("made-in-e2e");
  await page.getByRole("button", { name: "Make key" }).click();
  await page.waitForLoadState();
  const key = (await page.textContent("#new-key")).trim();
  check(key.startsWith("cairn_"), "the key is shown");
  check(await page.getByRole("button", { name: "Copy" }).isVisible(), "a copy button");
  await shot(page, "desktop-keys");
  const r = await fetch(URL + "/v1/stats", { headers: { authorization: `Bearer ${key}` } });
  check(r.status === 200, "the new key works");
  const id = key.split("_")[1];
  page.once("dialog", (d) => d.accept());
  await page.getByRole("button", { name: `Revoke ${id}` }).click();
  await page.waitForLoadState();
  const row = await page.locator("tr", { hasText: id }).textContent();
  check(row.includes("revoked"), "listed as revoked");
  const after = await fetch(URL + "/v1/stats", { headers: { authorization: `Bearer ${key}` } });
  check(after.status === 401, "the revoked key stops working");
});

await step("activity: writes and deletions, newest first, by key", async () => {
  await page.goto(URL + "/ui/activity");
  const text = await page.textContent("main");
  check(text.includes("deleted") && text.includes("reverted") && text.includes("superseded"), "the changes made above");
  check(await page.getByRole("heading", { name: "Key use" }).isVisible(), "key use, for an admin");
  await axe(page, "activity");
  await shot(page, "desktop-activity");
});

await step("similar memories with their similarity", async () => {
  await page.goto(URL + "/ui/memories/" + seeded.db);
  check(await page.getByRole("heading", { name: "Similar memories" }).isVisible(), "the section");
  check(await page.locator("table.counts meter").count() >= 1, "similarity bars");
});

await step("what the agent sees: context and recall with token counts", async () => {
  await page.goto(URL + "/ui/agent?project=atlas&topic=deploy&budget=600");
  check((await page.textContent("main")).includes("of 600 tokens"), "the budget");
  check(await page.locator("pre.agent").count() === 2, "context and recall");
  await axe(page, "agent view");
  await shot(page, "desktop-agent");
});

await step("tenant A never sees tenant B: search, URL, id", async () => {
  await page.goto(URL + "/ui/memories?q=confidential+roadmap+zephyr");
  check(!(await page.textContent("#results")).includes("zephyr"), "search");
  await page.goto(URL + "/ui/memories?project=atlas");
  check(!(await page.textContent("#results")).includes("zephyr"), "listing");
  const r = await page.goto(URL + "/ui/memories/" + seeded.other);
  check(r.status() === 404, "by id: 404");
  check(!(await page.textContent("body")).includes("zephyr"), "nothing of it shown");
});

await step("dark theme", async () => {
  await page.goto(URL + "/ui/memories");
  await page.click("#theme");
  const theme = await page.evaluate(() => document.documentElement.getAttribute("data-theme"));
  check(theme === "dark" || theme === "light", "a theme is set");
  if (theme !== "dark") await page.click("#theme");
  await axe(page, "memory browser, dark");
  await shot(page, "desktop-memories-dark");
  await page.click("#theme");
});

await step("filter by source and superseded; bulk tag in one call", async () => {
  await page.goto(URL + "/ui/memories?source=import");
  const imported = await page.textContent("#results");
  check(imported.includes("atlas-stg") && !imported.includes("Always run the tests"), "source import: the imported memories only");
  await page.locator("#select-all").check();
  await page.fill("#bulk-tag", "imported-batch");
  await page.getByRole("button", { name: "Tag selected" }).click();
  await page.waitForLoadState();
  check((await page.textContent("main")).includes("Tagged 2 memories"), "both tagged");
  const listed = await rest(ADMIN, "GET", "/memories?all_projects=true&tags=imported-batch");
  check(listed.total === 2, "tagged over REST too");
  await page.goto(URL + "/ui/memories?superseded=only");
  check((await page.textContent("#results")).includes("GitHub Actions"), "superseded only");
  await page.goto(URL + "/ui");
  check(await page.getByRole("heading", { name: "Expiring soon" }).isVisible(), "expiring soon on the overview");
  check((await page.locator("section", { has: page.getByRole("heading", { name: "Superseded", exact: true }) }).textContent()).includes("GitHub Actions"), "superseded on the overview");
});

await step("bulk: select two, forget after confirming the count", async () => {
  await page.goto(URL + "/ui/memories?q=Imported&mode=keyword");
  const boxes = page.locator("input[name=ids]");
  check(await boxes.count() >= 2, "two results");
  await boxes.nth(0).check();
  await boxes.nth(1).check();
  await page.getByRole("button", { name: "Forget selected…" }).click();
  await page.waitForLoadState();
  check((await page.textContent("main")).includes("Forget 2 memories"), "the count first");
  await page.getByRole("button", { name: "Forget 2 memories" }).click();
  await page.waitForLoadState();
  check((await page.textContent("main")).includes("Forgot 2 memories"), "done");
});

await step("sign out", async () => {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(URL + "/ui/login");
  await page.goto(URL + "/ui/memories");
  check(page.url().endsWith("/ui/login"), "signed out");
});

await step("a read key can look but not edit", async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const p = await signIn(ctx, READER, "reader");
  await p.goto(URL + "/ui/memories/" + seeded.db);
  check(await p.locator("#edit").count() === 0, "no edit form");
  check(await p.getByRole("link", { name: "Keys" }).count() === 0, "no keys link");
  const status = await p.evaluate(async (id) => {
    const token = JSON.parse(document.body.getAttribute("hx-headers"))["x-csrf-token"];
    const r = await fetch(`/ui/memories/${id}/forget`, { method: "POST", headers: { "x-csrf-token": token } });
    return r.status;
  }, seeded.db);
  check(status === 403, `forbidden (got ${status})`);
  await ctx.close();
});

await step("phone width (390 px): screens usable, accessible", async () => {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  const p = await signIn(ctx, ADMIN, "phone");
  for (const [path, name] of [["/ui", "overview"], ["/ui/memories", "memories"], ["/ui/memories?q=PostgreSQL", "search"], ["/ui/memories/" + seeded.db, "memory"], ["/ui/agent?topic=tests", "agent"], ["/ui/keys", "keys"], ["/ui/activity", "activity"], ["/ui/transfer", "transfer"]]) {
    await p.goto(URL + path);
    const wide = await p.evaluate(() => document.documentElement.scrollWidth);
    check(wide <= 400, `${name}: no sideways scrolling of the page (${wide} px)`);
    await axe(p, `phone ${name}`);
    await shot(p, `phone-${name}`);
  }
  await ctx.close();
});

check(true);
if (problems.length) {
  failures++;
  console.log("FAIL the browser reported:\n  " + problems.join("\n  "));
}
await browser.close();
console.log(failures ? `${failures} failed` : "all passed; screenshots in " + SHOTS);
process.exit(failures ? 1 : 0);
