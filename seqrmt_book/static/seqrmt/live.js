/* "Live code": connect the code cells of a chapter page to a Jupyter kernel (thebe).
 *
 * Written into chapter pages by seqrmt_book/live.py, with the page's data in
 * <script type="application/json" id="seqrmt-livecode-data"> (the hidden set-up code and
 * where it runs, the kernel's folder, the Binder repository).  Nothing is fetched until
 * the reader presses the button; then:
 *
 * 1. the kernel source is chosen: the local server of `python -m seqrmt.live` when the
 *    page is served by it (it answers <site root>/_seqrmt_live.json with the server's
 *    address and token), otherwise mybinder.org (the repository's binder/ folder);
 *    `?kernel=binder` in the page's address forces Binder;
 * 2. the vendored thebe (vendor/thebe/, next to this file) and its stylesheet are loaded;
 * 3. every code cell shown in the page becomes an editor with a run button (Shift+Enter
 *    runs it too); the set-up cells are inserted, hidden, where they belong;
 * 4. when a cell runs, every earlier cell that has not run yet runs first, in order (the
 *    set-up code included), so that any cell can be edited and run at once.
 *
 * <div class="seqrmt-livecode" data-seqrmt-livecode="off|loading|connecting|running|ready|error"> tells the
 * state (the tests wait on it); its status region (role="status") says it in words.
 * The static widgets of the page stay as they are (rendered by widgets.js); a cell run in
 * the kernel shows its new output, live ipywidgets included, through thebe's own widget
 * manager (ipywidgets 8 controls bundled in thebe).
 */
(() => {
  "use strict";
  const here = (document.currentScript && document.currentScript.src) || "";
  const box = document.querySelector(".seqrmt-livecode");
  const dataEl = document.getElementById("seqrmt-livecode-data");
  if (!box || !dataEl || !here) return;
  const button = box.querySelector("button");
  const status = box.querySelector(".seqrmt-livecode-status");
  const data = JSON.parse(dataEl.textContent);
  const thebeBase = new URL("vendor/thebe/", here).href;
  const LOCAL_HOSTS = ["127.0.0.1", "localhost", "[::1]"];
  let started = false;

  /* The state, and the text of the status region: a part between backticks (a command) is
   * shown as code, not with its backticks. */
  const say = (state, text) => {
    box.setAttribute("data-seqrmt-livecode", state);
    status.textContent = "";
    text.split("`").forEach((part, i) => {
      if (!part) return;
      if (i % 2) {
        const code = document.createElement("code");
        code.textContent = part;
        status.appendChild(code);
      } else {
        status.appendChild(document.createTextNode(part));
      }
    });
  };

  const load = (tag, attrs) => new Promise((resolve, reject) => {
    const el = document.createElement(tag);
    Object.assign(el, attrs);
    el.onload = () => resolve(el);
    el.onerror = () => reject(new Error(`could not load ${attrs.src || attrs.href}`));
    document.head.appendChild(el);
  });

  /* The local server of `python -m seqrmt.live`, if it serves this page. */
  async function localServer() {
    if (new URLSearchParams(location.search).get("kernel") === "binder") return null;
    if (!/^https?:$/.test(location.protocol) || !LOCAL_HOSTS.includes(location.hostname)) return null;
    const root = new URL(document.documentElement.dataset.content_root || "./", location.href);
    try {
      const r = await fetch(new URL("_seqrmt_live.json", root), {cache: "no-store"});
      if (!r.ok) return null;
      const cfg = await r.json();
      return cfg && cfg.baseUrl ? cfg : null;
    } catch (e) {
      return null;
    }
  }

  /* Mark the page's code cells for thebe and insert the hidden set-up cells. */
  function prepareCells() {
    const cells = Array.from(document.querySelectorAll("main div.cell"))
      .filter((c) => c.querySelector(".cell_input pre"));
    if (cells.length !== data.shown) {
      throw new Error(`the page shows ${cells.length} code cells, its notebook ${data.shown}`);
    }
    cells.forEach((cell) => {
      const pre = cell.querySelector(".cell_input pre");
      pre.setAttribute("data-executable", "true");
      pre.setAttribute("data-language", "python");
      let out = cell.querySelector(".cell_output");
      if (!out) {
        out = document.createElement("div");
        out.className = "cell_output docutils container";
        cell.appendChild(out);
      }
      out.setAttribute("data-seqrmt-output", "");
    });
    data.setup.forEach((s) => {
      const holder = document.createElement("div");
      holder.className = "seqrmt-livecode-setup";
      holder.hidden = true;
      const pre = document.createElement("pre");
      pre.textContent = s.source;
      pre.setAttribute("data-executable", "true");
      pre.setAttribute("data-language", "python");
      pre.setAttribute("data-seqrmt-setup", (s.provides || []).join(" "));
      const out = document.createElement("div");
      out.setAttribute("data-seqrmt-output", "");
      holder.append(pre, out);
      if (s.before < cells.length) cells[s.before].before(holder);
      else cells[cells.length - 1].after(holder);
    });
  }

  /* Running a cell first runs every earlier cell that has not run yet (one queue). */
  function runInOrder(notebook) {
    const cells = notebook.cells || [];
    const done = new Set();
    let queue = Promise.resolve();
    cells.forEach((cell, i) => {
      const run = cell.execute.bind(cell);
      cell.execute = (source) => {
        const job = queue.then(async () => {
          for (let j = 0; j < i; j++) {
            if (done.has(cells[j].id)) continue;
            say("running", `Running the cells above it first (${j + 1} of ${i})…`);
            await run.call(cells[j], cells[j].source);
            done.add(cells[j].id);
          }
          say("running", "Running…");
          const result = await run(source === undefined ? cell.source : source);
          done.add(cell.id);
          say("ready", readyText);
          return result;
        });
        queue = job.catch(() => undefined);
        return job;
      };
    });
  }

  /* thebe's widget manager fetches RequireJS from cdnjs before it renders any widget (its
     URL is written in the bundle): that one request goes to the vendored copy instead. */
  function vendorRequireJs() {
    if (window.fetch.seqrmtVendored) return;
    const cdn = "https://cdnjs.cloudflare.com/ajax/libs/require.js/";
    const fetch = window.fetch.bind(window);
    const vendored = (input, init) => {
      const url = typeof input === "string" ? input : (input && input.url) || "";
      return fetch(url.startsWith(cdn) ? thebeBase + "require.js" : input, init);
    };
    vendored.seqrmtVendored = true;
    window.fetch = vendored;
  }

  let readyText = "";

  /* The page's saved widgets (static/seqrmt/widgets.js) are rendered into the outputs that thebe
   * takes over: a renderer still at work when thebe replaces an output went on with a view it had
   * lost ("Cannot read properties of null (reading 'widgets')").  So thebe starts once they are
   * rendered (or failed); pressing the button has started them (its focus). */
  function staticWidgetsSettled() {
    const html = document.documentElement;
    const busy = () => ["waiting", "loading"].includes(html.getAttribute("data-seqrmt-widgets"));
    if (!busy()) return Promise.resolve();
    return new Promise((resolve) => {
      const watch = new MutationObserver(() => {
        if (!busy()) { watch.disconnect(); resolve(); }
      });
      watch.observe(html, {attributes: true, attributeFilter: ["data-seqrmt-widgets"]});
      if (html.getAttribute("data-seqrmt-widgets") === "waiting") {
        document.dispatchEvent(new FocusEvent("focusin"));  // widgets.js starts on the first focus
      }
    });
  }

  async function start() {
    if (started) return;
    started = true;
    button.setAttribute("aria-disabled", "true");
    say("loading", "Loading the live-code tools…");
    let local = null;
    // In a reader's words: what failed is in the console (console.warn below), not here.
    const failed = () => local
      ? "Could not start a kernel on the local server. Is `python -m seqrmt.live` still " +
        "running? Reload the page to try again."
      : "mybinder.org did not start a kernel for this page (it may be busy or out of reach). " +
        "Reload the page to try again later, or run the book on your computer with " +
        "`python -m seqrmt.live` (see How to run it).";
    try {
      local = await localServer();
      if (!local && !data.binder) throw new Error("no kernel source: no local server and no Binder repository");
      vendorRequireJs();
      await load("link", {rel: "stylesheet", href: thebeBase + "thebe.css"});
      await load("script", {src: thebeBase + "index.js"});
      if (!window.thebe || !window.thebe.bootstrap) throw new Error("thebe did not load");
      await staticWidgetsSettled();
      // every cell becomes an editor that measures itself: lay the whole page out once (live.css)
      document.documentElement.classList.add("seqrmt-livecode-on");
      prepareCells();
      const where = local ? "the local server" : "mybinder.org";
      window.thebe.on("status", (_evt, d) => {
        if (!d) return;
        if (d.status === "error") {
          console.warn("seqrmt live code:", d.message || "no answer");
          say("error", failed());
        } else if (box.getAttribute("data-seqrmt-livecode") !== "ready" && d.status === "launching") {
          say("connecting", "Asking mybinder.org for a kernel: the first start of the book's " +
              "environment can take a few minutes; this page keeps working meanwhile.");
        }
      });
      say("connecting", local ? "Starting a kernel on the local server…"
        : "Asking mybinder.org for a kernel: the first start of the book's environment can take " +
          "a few minutes; this page keeps working meanwhile.");
      const options = {
        requestKernel: true,
        selector: "[data-executable]",
        outputSelector: "[data-seqrmt-output]",
        predefinedOutput: true,
        mountRunButton: true,
        mountRunAllButton: false,
        mountRestartButton: true,
        mountRestartAllButton: false,
        kernelOptions: {kernelName: "python3", path: data.path || "/"},
        // thebe would load MathJax 2 from a CDN to typeset LaTeX outputs: none (the book's
        // code cells output text, figures and widgets; a LaTeX output shows as its source).
        mathjaxUrl: "",
      };
      if (local) {
        Object.assign(options, {useBinder: false, serverSettings: {
          baseUrl: local.baseUrl, wsUrl: local.wsUrl, token: local.token, appendToken: true}});
      } else {
        Object.assign(options, {useBinder: true, binderOptions: data.binder});
      }
      const {session, notebook} = await window.thebe.bootstrap(options);
      if (!session) throw new Error(`no kernel session on ${where}`);
      runInOrder(notebook);
      readyText = `Live code is on (kernel on ${where}). Edit any code cell and run it with ` +
        "its run button or Shift+Enter (Esc leaves the editor); the cells above it run first.";
      say("ready", readyText);
      button.textContent = "Live code is on";
    } catch (err) {
      if (box.getAttribute("data-seqrmt-livecode") !== "error") {
        const message = err && err.message ? err.message : String(err);
        say("error", box.getAttribute("data-seqrmt-livecode") === "loading"
          ? "Live code could not start: its tools did not load. Reload the page to try again." : failed());
        console.warn("seqrmt live code:", message);
      } else {
        console.warn("seqrmt live code:", err);
      }
    }
  }

  button.addEventListener("click", start);
})();
