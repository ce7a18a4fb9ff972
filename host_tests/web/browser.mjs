// What the page drivers (drive.mjs, hall.mjs) share: Chromium's arguments and a
// watch on a page that collects its errors.

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
