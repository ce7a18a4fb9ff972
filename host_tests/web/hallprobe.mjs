// Opens hall pages (hall/) in headless Chromium and reads back what they show, on
// request, for host_tests/test_hall_hostile.py and test_hall_screens.py.
//
//   node host_tests/web/hallprobe.mjs CHROMIUM
//
// Talks over stdin/stdout, one JSON object a line:
//   in  {open: NAME, url}   out {opened: NAME}: the page is connected and subscribed
//   in  {read: NAME}        out {read: {cards, finished, refused, conn}}
//   in  {inject: NAME, topic, head, size}   out {injected: NAME}: `head` and newlines
//                           to `size` bytes, handed to the hall view's receive()
//   in  {look: NAME, width, height, shot}   out {look: {cards, finished, clipped}}: the
//                           page at that size (after it laid itself out again): each
//                           card's texts as hall.mjs reads them (browser.mjs
//                           cardReader) and its score's size, each finished game's
//                           texts, and every text a person sees only in part; a
//                           screenshot to `shot` when given
//   in  {end: true}         out {end: {console}}: every console error and uncaught
//                           exception of every page (the test fails on any)
import readline from "node:readline";
import { chromium } from "playwright-core";
import { ARGS, cardReader, frames, watch } from "./browser.mjs";

const send = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const errors = [];
const pages = new Map();

function dump() {
  const text = (root, sel) => {
    const e = root.querySelector(sel);
    return e ? e.textContent : null;
  };
  return {
    cards: [...document.querySelectorAll("article[data-table], section[data-table]")].map((c) => ({
      table: c.dataset.table,
      name: text(c, ".name"),
      game: text(c, ".head .game"),
      status: text(c, ".head .status"),
      bad: text(c, ".bad"),
      phase: text(c, ".phase"),
      detail: text(c, ".detail"),
      scores: [...c.querySelectorAll(".player .score")].map((e) => e.textContent),
      fouls: [...c.querySelectorAll(".player .fouls")].map((e) => e.textContent),
      who: [...c.querySelectorAll(".player .who")].map((e) => e.textContent),
    })),
    finished: [...document.querySelectorAll("#games li")].map((li) => li.dataset.game),
    winners: [...document.querySelectorAll("#games .winner")].map((e) => e.textContent),
    // elements inside what shows a name (none: names are text) and images anywhere
    markup: [...document.querySelectorAll(".player .who, .detail, #games .winner")]
      .reduce((n, e) => n + e.children.length, 0) + document.querySelectorAll("img").length,
    refused: text(document, "#refused"),
    conn: text(document, "#conn"),
  };
}

// What a person reads at this size: the texts of each card and each finished game,
// and every element whose text is cut: wider or higher than its box (scrollWidth,
// scrollHeight), or outside a box that hides what overflows it (the card, the list of
// finished games, the page), in part. An element wholly outside such a box is not
// shown at all: a finished game so is left out of what is read (a card's text so
// is cut).
function look() {
  const rectOf = (e) => {
    const range = document.createRange();
    range.selectNodeContents(e);
    return range.getBoundingClientRect();
  };
  // 0: wholly shown, 1: cut, 2: not shown at all
  const shown = (e) => {
    if (!e.getClientRects().length) return 2;
    const r = rectOf(e);
    // a line's glyph box is a little higher than the line (room for accents): 10 %
    const slack = 1 + 0.1 * parseFloat(getComputedStyle(e).fontSize);
    let cut = 0;
    for (let p = e; p; p = p.parentElement) {
      const cs = getComputedStyle(p);
      if (p !== e && cs.overflowX === "visible" && cs.overflowY === "visible") continue;
      if (p === e) {
        if (cs.overflowX !== "visible" && e.scrollWidth > e.clientWidth + 1) cut = 1;
        if (cs.overflowY !== "visible" && e.scrollHeight > e.clientHeight + slack) cut = 1;
        continue;
      }
      if (!p.clientWidth) continue;         // (an inline box hides nothing)
      const q = p.getBoundingClientRect();
      const box = p === document.documentElement
        ? { left: 0, top: 0, right: innerWidth, bottom: innerHeight }
        : { left: q.left + p.clientLeft, top: q.top + p.clientTop,
          right: q.left + p.clientLeft + p.clientWidth,
          bottom: q.top + p.clientTop + p.clientHeight };
      if (r.right <= box.left || r.left >= box.right || r.bottom <= box.top ||
          r.top >= box.bottom) return 2;
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - slack ||
          r.bottom > box.bottom + slack) cut = 1;
    }
    return cut;
  };
  const clipped = [];
  const where = (e) => {
    const c = e.closest("[data-table]");
    return c ? c.dataset.table + (c.dataset.game ? " game " + c.dataset.game : "") : "page";
  };
  for (const e of document.body.querySelectorAll("*")) {
    const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || e.closest("[hidden]")) continue;
    // a card shows all of its texts; a finished game all of its, or none
    const how = shown(e);
    if (how === 1 || (how === 2 && e.closest(".card"))) {
      clipped.push({ where: where(e), cls: e.className, text: e.textContent });
    }
  }
  for (const li of document.querySelectorAll("#games li")) {
    const hows = new Set([...li.querySelectorAll("*")].map(shown));
    if (hows.size > 1) clipped.push({ where: where(li), cls: li.className, text: li.textContent });
  }
  const cards = [...document.querySelectorAll("article[data-table]")].map((card) => ({
    ...window.__dump(card),
    score: parseFloat(getComputedStyle(card.querySelector(".score") || card).fontSize),
  }));
  const finished = [...document.querySelectorAll("#games li")]
    .filter((li) => [...li.querySelectorAll("*")].every((e) => shown(e) === 0))
    .map((li) => ({
      table: li.dataset.table,
      game: li.dataset.game,
      texts: [...li.children].map((e) => e.textContent),
      scores: [...li.querySelectorAll(".scores > *")].map((e) => e.textContent),
    }));
  const listed = [...document.querySelectorAll("#games li")].map((li) => li.dataset.table);
  return { cards, finished, listed, clipped };
}

async function main() {
  const browser = await chromium.launch({ executablePath: process.argv[2], args: ARGS,
    headless: true });
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  await ctx.addInitScript(cardReader);        // window.__dump, read by look()
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.open) {
      const page = await ctx.newPage();
      watch(errors, page, m.open);
      page.on("dialog", (d) => {        // an alert() a name could run
        errors.push(`${m.open}: dialog ${d.message()}`);
        d.dismiss();
      });
      await page.goto(m.url);
      await page.waitForSelector("html[data-connected]", { timeout: 120000 });
      pages.set(m.open, page);
      send({ opened: m.open });
    } else if (m.inject) {
      // a message of `size` bytes handed to the hall view as if the broker sent it
      await pages.get(m.inject).evaluate(([topic, head, size]) => {
        const bytes = new Uint8Array(size).fill(0x0a);
        bytes.set(new TextEncoder().encode(head));
        window.cowboyHall.receive(topic, bytes);
      }, [m.topic, m.head, m.size]);
      send({ injected: m.inject });
    } else if (m.look) {
      const page = pages.get(m.look);
      await page.setViewportSize({ width: m.width, height: m.height });
      await frames(page);               // the resize observed, the page laid out again
      if (m.shot) await page.screenshot({ path: m.shot });
      send({ look: await page.evaluate(look) });
    } else if (m.read) {
      send({ read: await pages.get(m.read).evaluate(dump) });
    } else if (m.end) {
      break;
    }
  }
  await browser.close();
  send({ end: { console: errors } });
}

main().catch((e) => {
  send({ end: { console: errors, error: String(e && e.stack ? e.stack : e) } });
  process.exit(1);
});
