/* seqrmt: loads the book's interactive figures without delaying the first paint.
 *
 * Added (deferred) to pages that carry saved ipywidgets state (nb_ipywidgets_js in
 * _config.yml).  The state itself is not in the page: seqrmt_book/assets.py writes it to
 * <page>.widget-state.js next to the page and names that file in
 * <meta name="seqrmt-widget-state">.  This script loads the widget renderer
 * (vendor/widgets/seqrmt-widgets.js, an esbuild bundle of the ipywidgets 8
 * controls, ~0.55 MB instead of the 4.4 MB embed-amd.js) and the state
 * when the first widget comes within one and a half screens of the viewport, or when
 * the reader first moves the keyboard focus, whichever comes first: a reader who only
 * reads the opening of a chapter never pays for them (0.55 MB and about half a second
 * of a phone's CPU).  Both are plain <script> elements, so this works over http:// and
 * file:// alike.
 *
 * Progress is exposed on <html data-seqrmt-widgets="waiting|loading|ready|error">
 * (the browser test waits for "ready").  Every slider handle gets an accessible name
 * (its description label) and an aria-valuetext "<short name> = <shown value>"; an
 * explorer's status region (.seqrmt-explore-status) becomes a polite live region that
 * announces the figure now shown; the controls of kernel-only live() widgets are
 * disabled (see seqrmt_book/README.md and seqrmt.widgets).
 */
(function () {
  "use strict";
  var root = document.documentElement;
  var here = document.currentScript && document.currentScript.src;
  var VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]';

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = src;
      s.async = true;
      s.onload = resolve;
      s.onerror = function () { reject(new Error("could not load " + src)); };
      document.head.appendChild(s);
    });
  }

  function loadStyle(href) {
    return new Promise(function (resolve) {
      var l = document.createElement("link");
      l.rel = "stylesheet";
      l.href = href;
      l.onload = l.onerror = resolve;
      document.head.appendChild(l);
    });
  }

  var uid = 0;
  function ensureId(el, prefix) {
    if (!el.id) el.id = prefix + "-" + (++uid);
    return el.id;
  }

  /* Slider handles (noUiSlider) announce a bare number ("2" for the third option).
   * Name them by their description label and give them "<short name> = <shown value>"
   * as aria-valuetext (short name: the label up to " (" or " = ", e.g. "β" for
   * "β = ‖μ‖² (signal strength)"), kept in sync with the readout. */
  function shortName(text) {
    return text.split(" (")[0].split(" = ")[0].trim();
  }

  function labelSlider(container) {
    var handle = container.querySelector('.noUi-handle[role="slider"]');
    if (!handle || handle.__seqrmtLabelled) return;
    handle.__seqrmtLabelled = true;
    var label = container.querySelector(".widget-label");
    if (label && label.getAttribute("title") === "null") label.removeAttribute("title");
    var readout = container.querySelector(".widget-readout");
    var name = label && label.style.display !== "none" ? label.textContent.replace(/\s+/g, " ").trim() : "";
    if (name) {
      handle.setAttribute("aria-labelledby", ensureId(label, "seqrmt-slider-label"));
      handle.removeAttribute("aria-label");
    } else if (!handle.getAttribute("aria-label")) {
      handle.setAttribute("aria-label", "slider");
    }
    var short = shortName(name);
    // The readout repeats the value visually; the handle announces it.
    if (readout) readout.setAttribute("aria-hidden", "true");
    function sync() {
      var shown = readout ? readout.textContent.trim() : "";
      if (!shown) return;
      var text = short ? short + " = " + shown : shown;
      if (handle.getAttribute("aria-valuetext") !== text) handle.setAttribute("aria-valuetext", text);
    }
    sync();
    var pending = false;
    var obs = new MutationObserver(function () {
      if (pending) return;
      pending = true;
      Promise.resolve().then(function () { pending = false; sync(); });
    });
    if (readout) obs.observe(readout, { childList: true, characterData: true, subtree: true });
    obs.observe(handle, { attributes: true, attributeFilter: ["aria-valuenow", "aria-valuetext"] });
  }

  /* Kernel-only live() widgets cannot redraw on a static page: their controls are
   * shown greyed out, disabled and out of the tab order (a visible note says why). */
  function disableLiveControls(scope) {
    Array.prototype.forEach.call(scope.querySelectorAll(".seqrmt-live-controls"), function (box) {
      box.setAttribute("aria-disabled", "true");
      Array.prototype.forEach.call(box.querySelectorAll("input, select, textarea, button"), function (el) {
        el.disabled = true;
      });
      Array.prototype.forEach.call(box.querySelectorAll('[role="slider"], .widget-readout'), function (el) {
        el.setAttribute("aria-disabled", "true");
        el.setAttribute("tabindex", "-1");
        if (el.isContentEditable) el.setAttribute("contenteditable", "false");
      });
      Array.prototype.forEach.call(box.querySelectorAll(".noUi-target"), function (el) {
        el.setAttribute("disabled", "");
      });
    });
  }

  function labelControls(scope) {
    Array.prototype.forEach.call(
      scope.querySelectorAll(".widget-slider, .jupyter-widget-slider, .widget-hslider"), labelSlider);
    // Dropdowns, text fields ...: tie the visible description to the control.
    Array.prototype.forEach.call(scope.querySelectorAll(".widget-inline-hbox"), function (box) {
      var label = box.querySelector(":scope > .widget-label");
      var field = box.querySelector(":scope > select, :scope > input, :scope > textarea");
      if (label && field && !field.hasAttribute("aria-labelledby") && label.textContent.trim()) {
        field.setAttribute("aria-labelledby", ensureId(label, "seqrmt-control-label"));
      }
    });
    // An explorer's status region holds one visually hidden sentence per frame ("Showing
    // β = 0.5. <alt text>"); only the selected one is displayed, so a polite live region
    // announces the new figure when a slider moves.
    Array.prototype.forEach.call(scope.querySelectorAll(".seqrmt-explore-status"), function (st) {
      if (st.getAttribute("aria-live") !== "polite") st.setAttribute("aria-live", "polite");
    });
    disableLiveControls(scope);
  }

  /* Widgets created later (e.g. a Stack showing another child) get the same labels. */
  function watch() {
    var pending = false;
    var obs = new MutationObserver(function () {
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () { pending = false; labelControls(document); });
    });
    Array.prototype.forEach.call(document.querySelectorAll(".widget-subarea"), function (area) {
      obs.observe(area, { childList: true, subtree: true });
    });
  }

  function start() {
    if (root.getAttribute("data-seqrmt-widgets") !== "waiting") return;
    root.setAttribute("data-seqrmt-widgets", "loading");
    var meta = document.querySelector('meta[name="seqrmt-widget-state"]');
    var base = new URL("vendor/widgets/", here).href;
    var stateUrl = new URL(meta.getAttribute("content"), document.baseURI).href;
    Promise.all([
      loadStyle(base + "seqrmt-widgets.css"),
      loadScript(base + "seqrmt-widgets.js"),
      loadScript(stateUrl)
    ]).then(function () {
      var state = window.seqrmtWidgetState;
      if (!state || !window.seqrmtWidgets) throw new Error("widget renderer or state missing");
      return window.seqrmtWidgets.render(state, document);
    }).then(function (views) {
      // Sliders are built when their view is displayed: wait for that, then a frame.
      return Promise.all((views || []).map(function (v) { return v && v.displayed; }));
    }).then(function () {
      return new Promise(function (r) { requestAnimationFrame(function () { requestAnimationFrame(r); }); });
    }).then(function () {
      labelControls(document);
      watch();
      root.setAttribute("data-seqrmt-widgets", "ready");
      document.dispatchEvent(new CustomEvent("seqrmt:widgets-ready"));
    }).catch(function (err) {
      root.setAttribute("data-seqrmt-widgets", "error");
      console.error("seqrmt: the interactive figures could not be shown:", err);
    });
  }

  function init() {
    var views = document.querySelectorAll(VIEW);
    if (!here || !views.length || !document.querySelector('meta[name="seqrmt-widget-state"]')) return;
    root.setAttribute("data-seqrmt-widgets", "waiting");
    if ("IntersectionObserver" in window) {
      var io = new IntersectionObserver(function (entries) {
        if (entries.some(function (e) { return e.isIntersecting; })) { io.disconnect(); start(); }
      }, { rootMargin: "150% 0px" });
      Array.prototype.forEach.call(views, function (v) { if (v.parentElement) io.observe(v.parentElement); });
    } else {
      start();
    }
    // A keyboard user may tab towards a widget faster than the page scrolls near it.
    // (Screen readers move the viewport with their reading cursor: the observer sees it.)
    document.addEventListener("focusin", start, { once: true });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
