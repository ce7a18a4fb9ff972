// Drives the hall view and the overlay (hall/) in headless Chromium (playwright-core,
// the system's /usr/bin/chromium; no browser download) for host_tests/test_hall_page.py.
//
//   node host_tests/web/hall.mjs PLAN.json
//
// PLAN: {chromium, hall: URL of the hall view, again: the same with another login,
//        overlay: URL of one table's overlay,
//        site: the hall view without settings, form: what to type into its form,
//        many: URL of a hall view on a hall without tables, shots: folder for the
//        screenshots, manyShot: where the twenty tables' picture goes, viewport: [w, h]}
// Each page has its own login (the broker makes the login the client id).
// Talks over stdin/stdout, one JSON object a line:
//   out {ready: true}               the hall view is connected and subscribed
//   in  {read: true}                out {read: {cards, finished}}: what it shows now
//   in  {finish: {tables, sample}}  read everything, screenshots, the page opened
//                                   again (retained messages only), twenty tables
//                                   (`sample` state given to the page), the overlay
//   out {result}                    what the pages showed (raw texts), the log of
//                                   every change of a card with its time, the
//                                   console errors (the test fails on any)
// The page's DOM is read back as the texts a person sees; the test decodes them.
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { chromium } from "playwright-core";
import { ARGS, cardReader, frames, watch as watchPage } from "./browser.mjs";

const plan = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const result = { console: [] };

const send = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const lines = readline.createInterface({ input: process.stdin });
const queue = [];
let waiting = null;
lines.on("line", (l) => {
  if (!l.trim()) return;
  const m = JSON.parse(l);
  if (waiting) {
    const w = waiting;
    waiting = null;
    w(m);
  } else {
    queue.push(m);
  }
});
const next = () => (queue.length ? Promise.resolve(queue.shift()) : new Promise((r) => { waiting = r; }));

const watch = (page, where) => watchPage(result.console, page, where);

// In the page, before its scripts, after cardReader: the texts of every card
// ([data-table]), and a log of each change of a card's texts with the time (ms since
// the epoch) it happened and the time of the next animation frame (when it is painted).
function recorder() {
  window.__cards = () => [...document.querySelectorAll("article[data-table], section[data-table]")]
    .map(window.__dump);
  window.__log = [];
  const last = new Map();
  const observe = () => {
    const t = Date.now();
    for (const d of window.__cards()) {
      const s = JSON.stringify(d);
      if (last.get(d.table) === s) continue;
      last.set(d.table, s);
      const entry = { t, painted: 0, card: d };
      window.__log.push(entry);
      requestAnimationFrame(() => { entry.painted = Date.now(); });
    }
  };
  document.addEventListener("DOMContentLoaded", () => {
    new MutationObserver(observe).observe(document.body,
      { childList: true, subtree: true, characterData: true });
  });
}

function finishedList(page) {
  return page.evaluate(() => [...document.querySelectorAll("#games li")].map((li) => ({
    table: li.dataset.table,
    name: li.querySelector(".name").textContent,
    game: li.querySelector(".game").textContent,
    winner: li.querySelector(".winner").textContent,
    scores: [...li.querySelectorAll(".scores > *")].map((e) => e.textContent),
    actions: li.querySelector(".scores:not(:has(*))")?.textContent ?? null,
  })));
}

async function until(page, fn, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const ok = await fn(page);
    if (ok || Date.now() > end) return ok;
    await page.waitForTimeout(50);
  }
}

const read = async (page) => ({
  cards: await page.evaluate(() => window.__cards()),
  finished: await finishedList(page),
});

// Where the cards are, and how large a score is drawn.
const layout = (page) => page.evaluate(() => {
  const m = document.getElementById("tables");
  const box = m.getBoundingClientRect();
  return {
    main: [box.left, box.top, box.width, box.height],
    cards: [...m.children].map((c) => {
      const r = c.getBoundingClientRect();
      return [r.left, r.top, r.width, r.height];
    }),
    scoreFont: Math.min(...[...document.querySelectorAll(".player .score")]
      .map((e) => parseFloat(getComputedStyle(e).fontSize))),
  };
});

async function main() {
  // launch() gives the browser a fresh profile (--user-data-dir in a temporary folder).
  const browser = await chromium.launch({ executablePath: plan.chromium, args: ARGS, headless: true });
  const [w, h] = plan.viewport;
  const ctx = await browser.newContext({ viewport: { width: w, height: h } });
  await ctx.addInitScript(cardReader);
  await ctx.addInitScript(recorder);
  const page = await ctx.newPage();
  watch(page, "hall");
  await page.goto(plan.hall);
  await page.waitForSelector("html[data-connected]", { timeout: 120000 });
  send({ ready: true });

  for (;;) {
    const m = await next();
    if (m.read) {
      send({ read: await read(page) });
      continue;
    }
    await frames(page);                      // a last frame, then read
    Object.assign(result, await read(page));
    result.log = await page.evaluate(() => window.__log);
    result.layout = await layout(page);
    await page.screenshot({ path: path.join(plan.shots, "hall.png") });

    // The page opened again: what the broker kept (retained) is enough.
    const again = await ctx.newPage();
    watch(again, "hall, opened again");
    await again.goto(plan.again);
    await again.waitForSelector("html[data-connected]", { timeout: 120000 });
    // every table's card with its game, and the finished games the first page lists
    await until(again, async (p) => {
      const r = await read(p);
      return r.cards.length >= m.tables && r.cards.every((c) => c.rows.length) &&
        r.finished.length >= result.finished.length;
    }, 60000);
    result.again = await read(again);
    await again.close();

    // No settings in the address: the form asks, and reloads the page with them.
    const fp = await ctx.newPage();
    watch(fp, "form");
    await fp.goto(plan.site);
    const asked = await fp.evaluate(() => [...document.querySelectorAll("form.connect input")]
      .map((e) => e.name));
    for (const [k, v] of Object.entries(plan.form)) await fp.fill(`form.connect input[name=${k}]`, v);
    await fp.click("form.connect button");
    await fp.waitForSelector("html[data-connected]", { timeout: 120000 });
    await until(fp, async (p) => (await read(p)).cards.length >= m.tables, 60000);
    result.form = { asked, url: fp.url(), cards: (await read(fp)).cards };
    await fp.close();

    // Twenty tables: the grid fits them (states given to the page directly).
    const many = await ctx.newPage();
    watch(many, "twenty tables");
    await many.setViewportSize({ width: 1920, height: 1080 });
    await many.goto(plan.many);
    await many.waitForSelector("html[data-connected]", { timeout: 120000 });
    await many.evaluate((state) => {
      for (let i = 1; i <= 20; i++) {
        window.cowboyHall.receive(`cowboy/empty/t${String(i).padStart(2, "0")}/state`, state);
      }
    }, m.sample);
    await frames(many);
    result.many = { layout: await layout(many), cards: (await read(many)).cards };
    if (plan.manyShot) await many.screenshot({ path: plan.manyShot });
    await many.close();

    // The overlay of one table: a page of its own, transparent, read back the same way.
    const op = await ctx.newPage();
    watch(op, "overlay");
    await op.setViewportSize({ width: 1280, height: 720 });
    await op.goto(plan.overlay);
    await op.waitForSelector("html[data-connected]", { timeout: 120000 });
    await until(op, (p) => p.evaluate(() => document.querySelectorAll(".player").length > 0),
      60000);
    await frames(op);
    result.overlay = await op.evaluate(() => ({
      cards: window.__cards(),
      background: [getComputedStyle(document.documentElement).backgroundColor,
        getComputedStyle(document.body).backgroundColor],
    }));
    // What a stream shows: the overlay over a picture (here a gradient standing in
    // for the camera); the page itself stays transparent.
    await op.evaluate(() => {
      document.documentElement.style.background =
        "radial-gradient(ellipse at 60% 40%, #2f7d4f 0%, #1b5433 55%, #0d2a1a 100%)";
    });
    await op.screenshot({ path: path.join(plan.shots, "overlay.png") });
    await op.close();
    break;
  }
  await browser.close();
  send({ result });
}

main().catch((e) => {
  send({ result: { ...result, error: String(e && e.stack ? e.stack : e) } });
  process.exit(1);
});
