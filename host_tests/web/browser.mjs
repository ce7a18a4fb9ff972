// What the page drivers (drive.mjs, hall.mjs, hallprobe.mjs) share: Chromium's
// arguments, a watch on a page that collects its errors, the hall view's card as its
// texts, and the wait for a change to be painted.

export const ARGS = ["--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];
if (process.getuid && process.getuid() === 0) ARGS.push("--no-sandbox");

// Console errors, uncaught exceptions and failed requests of `page`, each as a
// line "<where>: ..." appended to `lines`.
export function watch(lines, page, where) {
  page.on("console", (m) => {
    if (m.type() === "error") lines.push(`${where}: ${m.text()}`);
  });
  page.on("pageerror", (e) => lines.push(`${where}: ${e.message}`));
  page.on("requestfailed", (r) => {
    lines.push(`${where}: request failed ${r.url()} ${r.failure()?.errorText}`);
  });
}

// In the page, before its scripts (ctx.addInitScript): window.__dump(card), a hall
// card's texts as a person reads them, which test_hall_page.py decodes.
export function cardReader() {
  const text = (root, sel) => {
    const e = root.querySelector(sel);
    return e ? e.textContent : null;
  };
  window.__dump = (card) => ({
    table: card.dataset.table,
    name: text(card, ".name"),
    game: text(card, ".head .game"),
    status: text(card, ".head .status"),
    phase: text(card, ".phase"),
    detail: text(card, ".detail"),
    rows: [...card.querySelectorAll(".player")].map((li) => ({
      mark: text(li, ".mark"), who: text(li, ".who"), tag: text(li, ".tag"),
      fouls: text(li, ".fouls"), run: text(li, ".run"), score: text(li, ".score"),
    })),
    extras: [...card.querySelectorAll(".extras span")].map((e) => e.textContent),
  });
}

// Two animation frames: what the page was handed (or its new size) is laid out and
// painted.
export const frames = (page) => page.evaluate(() => new Promise((r) =>
  requestAnimationFrame(() => requestAnimationFrame(r))));
