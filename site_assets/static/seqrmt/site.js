/* seqrmt: small page helpers (every page, deferred; added by site_assets/seqrmt_site.py).
 *
 * Wide display equations: site.css lets div.math scroll sideways with scroll shadows as
 * the visual cue.  Here, every equation that actually overflows (after MathJax has
 * typeset it, and again when the window is resized) becomes a keyboard tab stop
 * (tabindex=0, class "seqrmt-scrolls"), so that it can be scrolled with the arrow
 * keys; equations that fit are not tab stops (MathJax's own tab stops are switched off
 * in _config.yml: options.menuOptions.settings.inTabOrder = false).
 */
(function () {
  "use strict";

  /* Scripts that must not compete with the first paint for a slow link (MathJax, 1.2 MB)
   * are written by seqrmt_site.py as <script type="seqrmt/after-paint" src=...>, which
   * browsers do not fetch.  Load them, in order, once the first paint has happened (or
   * at the load event, or after 3 s, whichever comes first). */
  function loadAfterPaint() {
    var tags = Array.prototype.slice.call(document.querySelectorAll('script[type="seqrmt/after-paint"]'));
    if (!tags.length) return;
    var done = false;
    function go() {
      if (done) return;
      done = true;
      tags.forEach(function (tag) {
        var s = document.createElement("script");
        Array.prototype.forEach.call(tag.attributes, function (a) {
          if (a.name !== "type") s.setAttribute(a.name, a.value);
        });
        s.async = false;  // keep their order
        document.head.appendChild(s);
      });
    }
    try {
      new PerformanceObserver(function (list) {
        if (list.getEntriesByName("first-contentful-paint").length) go();
      }).observe({ type: "paint", buffered: true });
    } catch (e) { /* no paint timing: the fallbacks below */ }
    window.addEventListener("load", go, { once: true });
    setTimeout(go, 3000);
  }
  loadAfterPaint();

  function markScrollable() {
    var boxes = Array.prototype.slice.call(document.querySelectorAll("main div.math, main div.amsmath"));
    // read every width first, then write: one layout, not one per equation
    var wide = boxes.map(function (box) { return box.scrollWidth > box.clientWidth + 1; });
    boxes.forEach(function (box, i) {
      var marked = box.classList.contains("seqrmt-scrolls");
      if (wide[i] && !marked) {
        box.classList.add("seqrmt-scrolls");
        box.setAttribute("tabindex", "0");
        box.setAttribute("title", "Wide equation: scroll sideways");
      } else if (!wide[i] && marked) {
        box.classList.remove("seqrmt-scrolls");
        box.removeAttribute("tabindex");
        box.removeAttribute("title");
      }
    });
    document.documentElement.setAttribute("data-seqrmt-math", "checked");
  }

  function whenTypeset() {
    var MJ = window.MathJax;
    if (MJ && MJ.startup && MJ.startup.promise) {
      MJ.startup.promise.then(markScrollable, markScrollable);
      return;
    }
    if (!document.querySelector("main .math, main .amsmath")) {
      markScrollable();
      return;
    }
    // MathJax (deferred) not there yet: look again shortly (for at most a minute).
    if ((whenTypeset.tries = (whenTypeset.tries || 0) + 1) < 600) setTimeout(whenTypeset, 100);
  }

  /* The theme's search field button shows "Search Ctrl+K" but ends up named "Search"
   * (from its tooltip title): a speech-input user saying what they see would miss it
   * (WCAG 2.5.3, axe label-content-name-mismatch).  Name it by its visible text. */
  function nameSearchButtons() {
    Array.prototype.forEach.call(document.querySelectorAll(".search-button-field"), function (b) {
      var text = b.textContent.replace(/\s+/g, " ").trim();
      if (text && b.getAttribute("aria-label") !== text) b.setAttribute("aria-label", text);
    });
  }
  nameSearchButtons();
  document.addEventListener("DOMContentLoaded", nameSearchButtons);
  window.addEventListener("load", nameSearchButtons);

  var timer = null;
  window.addEventListener("resize", function () {
    clearTimeout(timer);
    timer = setTimeout(markScrollable, 150);
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", whenTypeset);
  else whenTypeset();
})();
