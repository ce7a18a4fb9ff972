// Opens hall pages (hall/: the desk, the hall view) in headless Chromium and works
// them as a person would, on request, for host_tests/test_hall_desk.py.
//
//   node host_tests/web/deskprobe.mjs CHROMIUM
//
// Talks over stdin/stdout, one JSON object a line (each answer names its request):
//   in  {open: NAME, url, viewport: [w, h]}   out {opened: NAME}: connected, subscribed
//   in  {fill: NAME, selector, value}   out {filled: NAME}: typed in (an input event)
//   in  {click: NAME, selector}         out {clicked: NAME}
//   in  {eval: NAME, expr}              out {value: ...}: the expression, in the page
//   in  {shot: NAME, path}              out {shot: NAME}: a screenshot of the page
//   in  {end: true}                     out {end: {console}}: every console error,
//                                       uncaught exception and dialog (an alert()
//                                       a name could run) of every page
import readline from "node:readline";
import { chromium } from "playwright-core";
import { ARGS, watch } from "./browser.mjs";

const send = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const errors = [];
const pages = new Map();

async function main() {
  const browser = await chromium.launch({ executablePath: process.argv[2], args: ARGS,
    headless: true });
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.open) {
      const page = await ctx.newPage();
      if (m.viewport) await page.setViewportSize({ width: m.viewport[0], height: m.viewport[1] });
      watch(errors, page, m.open);
      page.on("dialog", (d) => {
        errors.push(`${m.open}: dialog ${d.message()}`);
        d.dismiss();
      });
      await page.goto(m.url);
      await page.waitForSelector("html[data-connected]", { timeout: 120000 });
      pages.set(m.open, page);
      send({ opened: m.open });
    } else if (m.fill) {
      await pages.get(m.fill).fill(m.selector, m.value);
      send({ filled: m.fill });
    } else if (m.click) {
      await pages.get(m.click).click(m.selector);
      send({ clicked: m.click });
    } else if (m.eval) {
      send({ value: await pages.get(m.eval).evaluate(m.expr) });
    } else if (m.shot) {
      await pages.get(m.shot).screenshot({ path: m.path });
      send({ shot: m.shot });
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
