// Opens hall pages (hall/) in headless Chromium and reads back what they show, on
// request, for host_tests/test_hall_hostile.py.
//
//   node host_tests/web/hallprobe.mjs CHROMIUM
//
// Talks over stdin/stdout, one JSON object a line:
//   in  {open: NAME, url}   out {opened: NAME}: the page is connected and subscribed
//   in  {read: NAME}        out {read: {cards, finished, refused, conn}}
//   in  {inject: NAME, topic, head, size}   out {injected: NAME}: `head` and newlines
//                           to `size` bytes, handed to the hall view's receive()
//   in  {end: true}         out {end: {console}}: every console error and uncaught
//                           exception of every page (the test fails on any)
import readline from "node:readline";
import { chromium } from "playwright-core";
import { ARGS, watch } from "./browser.mjs";

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

async function main() {
  const browser = await chromium.launch({ executablePath: process.argv[2], args: ARGS,
    headless: true });
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
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
      await page.waitForSelector("html[data-connected]", { timeout: 20000 });
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
