// The stream overlay: one table's game on a transparent page, for a browser source
// in streaming software. Settings: ?broker=...&user=hall-overlay&password=...&hall=club&table=t01
// (the form asks when broker or table is missing).
"use strict";

(() => {
  const H = CowboyHall;
  const s = H.settings();
  const root = document.getElementById("overlay");

  if (!s.broker || !s.table) {
    document.body.classList.add("asking");
    H.form(root, s, { title: "Cowboy overlay: connect", user: "hall-overlay", table: true });
    return;
  }
  document.title = "Cowboy: " + s.table;
  let link = "";

  function draw(t) {
    if (s.hall && t.hall !== s.hall) return;
    const box = H.el("section", "box");
    box.dataset.table = t.key;
    const head = H.el("header", "head");
    head.append(H.el("span", "name", t.name));
    const st = t.state;
    if (st) head.append(H.el("span", "phase", H.PHASES[st.phase]));
    if (t.status === "offline") head.append(H.el("span", "status", "OFFLINE"));
    box.append(head);
    if (t.bad) box.append(H.el("p", "bad", "sent an " + t.bad));
    if (st) {
      box.append(H.rows(st));
      const foot = H.el("footer", "stage");
      foot.append(H.el("span", "detail", H.detail(st)));
      const ex = H.extras(st);
      if (ex.childNodes.length) foot.append(ex);
      box.append(foot);
      box.classList.toggle("over", st.phase === "over");
    }
    root.replaceChildren(box);
  }

  function status(text, ok) {
    link = ok ? "" : text;
    root.dataset.link = link;
  }

  const hall = new H.Hall(draw, () => {});
  H.connect(s, hall, status);
})();
