// Drives the scoreboard page in headless Chromium (playwright-core, the system's
// /usr/bin/chromium; no browser download) for host_tests/test_web.py.
//
//   node host_tests/web/drive.mjs PLAN.json RESULT.json
//
// PLAN: {url, chromium, builds, players, lines, shots, downloads, startupRuns, phone}
//   lines: [{kind: "wait", ms} | {kind: "key", name, long} | {kind: "turn", name}],
//   each with `check` (read the displays after it) and `shot` (screenshot after it)
// Every line is played by clicking the page (manual clock, ?clock=manual: time
// passes only through window.cowboy.advance, in the steps tools/sim.py takes);
// after each line marked `check` 100 ms more pass and the displays are read back.
// RESULT: what the displays showed, the states, resume and import results, start-up
// figures, and every console error (the test fails on any).
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { ARGS, watch as watchPage } from "./browser.mjs";

const PRESS_MS = 60;      // tools/sim.py: a key line is pressed 60 ms,
const GAP_MS = 140;       // then released 140 ms;
const HOLD_MS = 1000;     // HOLD: the long-press time (800 ms) plus 200 ms
const CHECK_MS = 100;     // read the displays this long after a checked line

const [planFile, resultFile] = process.argv.slice(2);
const plan = JSON.parse(fs.readFileSync(planFile, "utf8"));
const result = { console: [], builds: {}, startup: [], transfer: [] };

const watch = (page, where) => watchPage(result.console, page, where);

async function ready(page) {
  await page.waitForSelector("html[data-ready]", { timeout: 120000 });
  return Number(await page.evaluate(() => document.documentElement.dataset.ready));
}

const advance = (page, ms) => page.evaluate((n) => window.cowboy.advance(n), ms);

// The displays' texts once they differ from `was` (a key's effect in real time: a busy
// machine takes longer, so this waits for the change; 120 s is only a hang guard).
async function changed(page, was) {
  await page.waitForFunction((w) => JSON.stringify(window.cowboy.texts()) !== w,
    JSON.stringify(was), { timeout: 120000 });
  return page.evaluate(() => window.cowboy.texts());
}

async function snapshot(page) {
  return page.evaluate(() => ({
    now: window.cowboy.now(),
    texts: window.cowboy.texts(),
    pictures: window.cowboy.pictures(),
    state: window.cowboy.state(),
    status: document.getElementById("status").textContent,
    seats: [...document.querySelectorAll("#seats .seat")].filter((f) => !f.hidden).length,
    players: document.getElementById("players").value,
    playersLabel: document.getElementById("players").closest("label").textContent.trim(),
  }));
}

// What a phone shows: the seats on screen, where the keys end, keys whose label
// does not fit, the notice line.
async function layout(page) {
  return page.evaluate(() => ({
    seats: [...document.querySelectorAll("#seats .seat")].filter((f) => f.offsetParent !== null).length,
    keysBottom: document.getElementById("panel").getBoundingClientRect().bottom + scrollY,
    statusTop: document.getElementById("status").getBoundingClientRect().top + scrollY,
    statusBottom: document.getElementById("status").getBoundingClientRect().bottom + scrollY,
    status: document.getElementById("status").textContent,
    height: innerHeight,
    overflow: [...document.querySelectorAll("#panel .key")]
      .filter((k) => k.scrollWidth > k.clientWidth + 1 || k.scrollHeight > k.clientHeight + 1)
      .map((k) => k.dataset.key),
    message: document.getElementById("message").textContent,
  }));
}

async function centre(page, selector) {
  const box = await page.locator(selector).boundingBox();
  if (!box) throw new Error(`${selector} is not on the page`);
  return [box.x + box.width / 2, box.y + box.height / 2];
}

// One script line, by clicking the panel, in the time steps of tools/sim.py.
async function play(page, line) {
  if (line.kind === "wait") {
    await advance(page, line.ms);
    return;
  }
  if (line.kind === "turn") {
    const [x, y] = await centre(page, `[data-turn="${line.name}"]`);
    await page.mouse.click(x, y);
    await advance(page, PRESS_MS + GAP_MS);
    return;
  }
  const [x, y] = await centre(page, `#panel [data-key="${line.name}"]`);
  await page.mouse.move(x, y);
  await page.mouse.down();
  await advance(page, line.long ? HOLD_MS : PRESS_MS);
  await page.mouse.up();
  await advance(page, GAP_MS);
}

async function newGame(page, players) {
  await page.selectOption("#players", String(players));
  await page.click("#newgame");
}

async function startupRuns(browser) {
  for (let i = 0; i < plan.startupRuns; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await ctx.newPage();
    watch(page, "start-up " + (i + 1));
    const t0 = Date.now();
    await page.goto(plan.url);
    const marker = await ready(page);
    const wall = Date.now() - t0;
    const transfer = await page.evaluate(() => {
      const out = {};
      for (const e of performance.getEntriesByType("navigation")
        .concat(performance.getEntriesByType("resource"))) {
        out[e.name.replace(location.origin, "")] = [e.transferSize, e.decodedBodySize];
      }
      return out;
    });
    const parts = await page.evaluate(() => document.documentElement.dataset.startup);
    result.startup.push({ marker, wall, parts: parts.split(",").map(Number) });
    result.transfer.push(transfer);
    if (i === 0) {
      // The legend of the codes, as the page shows it.
      result.legend = await page.$$eval("#legend tbody tr",
        (rows) => rows.map((r) => [r.cells[0].textContent, r.cells[1].textContent]));
      // The real-time clock: a key pressed for real changes the shooter's display.
      await page.waitForTimeout(2300);
      const before = await page.evaluate(() => window.cowboy.texts());
      const [x, y] = await centre(page, '#panel [data-key="3"]');
      await page.mouse.move(x, y);
      await page.mouse.down();
      await page.waitForTimeout(120);
      await page.mouse.up();
      const after = await changed(page, before);
      // The keyboard map of `make sim`: "1" toggles the 1 ball, Backspace (UNDO) clears.
      await page.keyboard.press("1");
      const typed = await changed(page, after);
      await page.keyboard.press("Backspace");
      const cleared = await changed(page, typed);
      result.realtime = { before, after, typed, cleared };
    }
    await ctx.close();
  }
}

async function phone(browser) {
  const ctx = await browser.newContext({
    viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true,
  });
  const page = await ctx.newPage();
  watch(page, "phone");
  await page.goto(plan.url + "?clock=manual");
  await ready(page);
  await advance(page, 2100);
  const before = await page.evaluate(() => window.cowboy.texts());
  for (const key of ["5", "C2"]) {
    await page.tap(`#panel [data-key="${key}"]`);
    await advance(page, PRESS_MS + GAP_MS);
  }
  await advance(page, CHECK_MS);
  result.touch = { before, after: await page.evaluate(() => window.cowboy.texts()) };
  result.phone = { twoPlayers: await layout(page) };
  await page.screenshot({ path: path.join(plan.shots, "phone.png"), fullPage: true });
  // A new game: its notice, then two strokes later.
  await page.selectOption("#players", "3");
  await page.tap("#newgame");
  await advance(page, 2100);
  result.phone.newGame = await layout(page);
  // Names typed in the names field: on the labels and in the words.
  await page.fill("#names", "Anna, Zoë");
  await page.tap("#setnames");
  await advance(page, CHECK_MS);
  result.phone.named = await page.evaluate(() => ({
    labels: [...document.querySelectorAll("#seats .seat")].filter((f) => !f.hidden)
      .map((f) => f.querySelector("figcaption").textContent),
    status: document.getElementById("status").textContent,
    message: document.getElementById("message").textContent,
  }));
  for (const key of ["MISS", "MISS"]) {
    await page.tap(`#panel [data-key="${key}"]`);
    await advance(page, PRESS_MS + GAP_MS);
  }
  result.phone.twoStrokesLater = await layout(page);
  await ctx.close();
}

async function oneBuild(browser, build) {
  const t0 = Date.now();
  const lap = (what) => console.log(`${build}: ${what} at ${Date.now() - t0} ms`);
  const ctx = await browser.newContext({ viewport: { width: 1100, height: 900 }, acceptDownloads: true });
  const page = await ctx.newPage();
  watch(page, build);
  const out = { checks: [] };
  result.builds[build] = out;
  await page.goto(plan.url + "?clock=manual");
  await ready(page);
  await page.selectOption("#build", build);
  await newGame(page, plan.players);
  for (let i = 0; i < plan.lines.length; i++) {
    const line = plan.lines[i];
    await play(page, line);
    if (line.check) {
      await advance(page, CHECK_MS);
      out.checks.push({ line: line.number, ...(await snapshot(page)) });
    }
    if (line.shot) {
      await page.screenshot({ path: path.join(plan.shots, build + ".png"), fullPage: true });
    }
  }
  lap("game played");
  out.final = await snapshot(page);

  // A power cut: the journal in the browser's storage brings the game back.
  await page.click("#power");
  await advance(page, 2100 + CHECK_MS);
  out.cut = await snapshot(page);
  lap("power cut");

  // A reload of the page: the same.
  await page.reload();
  await ready(page);
  out.reloadBuild = await page.evaluate(() => window.cowboy.build());
  await advance(page, 2100 + CHECK_MS);
  out.reload = await snapshot(page);
  lap("reload");

  // The game record, exported as a download.
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export")]);
  out.record = path.join(plan.downloads, build + ".jsonl");
  await download.saveAs(out.record);

  // A new game, then the record imported: the board resumes it.
  await newGame(page, 2);
  await advance(page, 2100 + CHECK_MS);
  out.fresh = await snapshot(page);
  await play(page, { kind: "key", name: "MISS", long: false });   // the new game has begun
  await page.setInputFiles("#import", out.record);
  await page.waitForFunction(() => document.getElementById("message").textContent.startsWith("Imported"));
  out.importMessage = await page.evaluate(() => document.getElementById("message").textContent);
  await advance(page, 2100 + CHECK_MS);
  out.imported = await snapshot(page);
  lap("imported");

  // A record the board refuses: a message naming the line, nothing changes.
  await page.setInputFiles("#import", {
    name: "bad.jsonl", mimeType: "text/plain",
    buffer: Buffer.from('{"players": 3}\n{"shot": {"pocketed": [2]}}\n'),
  });
  await page.waitForFunction(() => document.getElementById("message").className === "bad");
  out.badImport = await page.evaluate(() => document.getElementById("message").textContent);
  await advance(page, CHECK_MS);
  out.afterBad = await snapshot(page);
  lap("bad import");

  // Offline once loaded: nothing more is fetched, a power cut still resumes.
  await ctx.setOffline(true);
  await page.click("#power");
  await advance(page, 2100 + CHECK_MS);
  out.offline = await snapshot(page);
  await ctx.close();
}

const browser = await chromium.launch({ executablePath: plan.chromium, args: ARGS, headless: true });
try {
  await startupRuns(browser);
  for (const build of plan.builds) await oneBuild(browser, build);
  if (plan.phone) await phone(browser);
} catch (e) {
  result.error = String(e && e.stack || e);
} finally {
  await browser.close();
  fs.writeFileSync(resultFile, JSON.stringify(result, null, 1));
}
