/* seqrmt: small page helpers (every page, deferred; added by seqrmt_book/assets.py).
 *
 * Wide display equations: site.css lets div.math (and a long inline formula's span.math)
 * scroll sideways with scroll shadows as the visual cue.  Here, every equation that
 * actually overflows (checked when it is laid out, and again when its width or the
 * column's changes) becomes a keyboard tab stop
 * (tabindex=0, class "seqrmt-scrolls"), so that it can be scrolled with the arrow keys;
 * equations that fit are not tab stops.  (The math is typeset when the site is built, by
 * seqrmt_book/typeset.py: no MathJax runs in the browser.)
 */
(function () {
  "use strict";

  /* Scripts that must not compete with the first paint for a slow link (the theme's)
   * are written by seqrmt_book/assets.py and _templates/layout.html as <script type="seqrmt/after-paint" src=...>, which
   * browsers do not fetch.  Load them, in order, once the first paint has happened (or
   * at the load event, or after 3 s, whichever comes first). */
  function loadAfterPaint() {
    var tags = Array.prototype.slice.call(document.querySelectorAll('script[type="seqrmt/after-paint"]'));
    /* <html data-seqrmt-scripts="loaded"> once the last of them has run (or failed to load): what
     * a script or a test that needs the theme's scripts waits for. */
    function loaded() { document.documentElement.setAttribute("data-seqrmt-scripts", "loaded"); }
    if (!tags.length) { loaded(); return; }
    var done = false;
    function go() {
      if (done) return;
      done = true;
      tags.forEach(function (tag, i) {
        var s = document.createElement("script");
        Array.prototype.forEach.call(tag.attributes, function (a) {
          if (a.name !== "type") s.setAttribute(a.name, a.value);
        });
        s.async = false;  // keep their order
        if (i === tags.length - 1) {
          s.addEventListener("load", loaded);
          s.addEventListener("error", loaded);
        }
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

  /* A wide equation becomes a tab stop with a hint; any other scroll box (code, outputs,
   * tables, registered by the theme's script through seqrmtWatchScrollable) is a tab stop
   * (tabindex 0) when it can scroll and focusable only by script (-1) when it cannot.
   * measure() only reads sizes and apply() only writes attributes: a batch of boxes is read
   * whole, then written, so that the layout is computed once for the batch, not once per box
   * (a chapter has hundreds of formulas). */
  function measure(box) {
    /* An inline formula (span.math, overflow hidden in the theme's CSS) is wide when its
     * typeset formula is wider than the span, which the column limits (max-width 100%); its
     * scrollWidth is not a measure: the hidden MathML for screen readers counts in it. */
    var inline = box.tagName === "SPAN" && box.classList.contains("math");
    var formula = inline ? box.querySelector("mjx-math") : null;
    var scrolls = inline ? !!formula && formula.getBoundingClientRect().width > box.clientWidth + 1
                         : box.scrollWidth > box.clientWidth + 1;
    var math = box.classList.contains("math") || box.classList.contains("amsmath");
    return { scrolls: scrolls, tall: !math && box.scrollHeight > box.clientHeight + 1 };
  }

  function apply(box, size) {
    if (!box.classList.contains("math") && !box.classList.contains("amsmath")) {
      var index = size.scrolls || size.tall ? "0" : "-1";
      if (box.getAttribute("tabindex") !== index) box.setAttribute("tabindex", index);
      return;
    }
    var marked = box.classList.contains("seqrmt-scrolls");
    if (size.scrolls && !marked) {
      box.classList.add("seqrmt-scrolls");
      box.setAttribute("tabindex", "0");
      box.setAttribute("title", "Wide equation: scroll sideways");
    } else if (!size.scrolls && marked) {
      box.classList.remove("seqrmt-scrolls");
      box.removeAttribute("tabindex");
      box.removeAttribute("title");
    }
  }

  function mark(boxes) {
    var sizes = boxes.map(measure);
    boxes.forEach(function (box, i) { apply(box, sizes[i]); });
  }

  /* A ResizeObserver reports a box when it is first laid out (sections far from the
   * viewport are not laid out: content-visibility in site.css), when fonts arrive, when
   * its content or the column changes size; the widths are read then, after layout,
   * never forcing one (the theme's own check read every box at load, which laid out
   * the whole page). */
  var observer = "ResizeObserver" in window ? new ResizeObserver(function (entries) {
    var seen = new Set();
    entries.forEach(function (e) { seen.add(e.target.__seqrmtBox || e.target); });
    mark(Array.from(seen));
  }) : null;

  function watch(box) {
    if (!observer) { mark([box]); return; }
    if (box.__seqrmtBox === undefined) {
      box.__seqrmtBox = box;
      observer.observe(box);
      if (box.tagName === "SPAN") return;   // an inline formula: its own size is enough
      var inner = box.querySelector("mjx-math") || box.firstElementChild;
      if (inner && inner.__seqrmtBox === undefined) {
        inner.__seqrmtBox = box;
        observer.observe(inner);
      }
    }
  }
  window.seqrmtWatchScrollable = watch;

  /* The theme's scroll-box check (addTabStopsToScrollableElements in its minified script)
   * reads the size of every code cell, output and table at load, on every resize and on
   * every change under #main-content, which lays out the whole page each time (seconds on a
   * phone; it defeats content-visibility).  Its one query, this selector list, is answered
   * here: the boxes go to watch() (the same check, made once each box is laid out) and the
   * theme gets an empty list.  seqrmt_book/theme.py (THEME_SCROLL_BOXES) checks at every
   * build that the installed theme still asks exactly this. */
  var THEME_SCROLL_BOXES = "pre, .nboutput > .output_area, .cell_output > .output, " +
    ".jp-RenderedHTMLCommon, .pst-scrollable-table-container";
  var query = document.querySelectorAll;
  var none = document.createDocumentFragment().querySelectorAll("*");
  document.querySelectorAll = function (selectors) {
    if (selectors === THEME_SCROLL_BOXES) {
      Array.prototype.forEach.call(query.call(document, selectors), watch);
      return none;
    }
    return query.apply(document, arguments);
  };

  function watchEquations() {
    /* display equations, and inline formulas (span.math: one wider than the column, a long
     * formula of a proof on a phone, scrolls sideways, site.css); a long one typeset in parts
     * (span.math.seqrmt-breaks) wraps between them instead */
    Array.prototype.forEach.call(document.querySelectorAll("main div.math, main div.amsmath, main span.math:not(.seqrmt-breaks)"), watch);
    document.documentElement.setAttribute("data-seqrmt-math", "watched");
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

  /* The sidebars of a narrow screen are <dialog>s that the theme opens (showModal) and closes
   * only on a tap outside them: after a tap on one of its entries the "Contents" drawer stayed
   * open over the section the reader asked for.  A link followed in it closes it, and so does
   * Escape (also when the focus has left the dialog). */
  var DRAWERS = "dialog#pst-primary-sidebar-modal, dialog#pst-secondary-sidebar-modal";
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[href]");
    var drawer = link && link.closest(DRAWERS);
    if (drawer && drawer.open && !event.defaultPrevented) drawer.close();
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    Array.prototype.forEach.call(document.querySelectorAll(DRAWERS), function (d) { if (d.open) d.close(); });
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watchEquations);
  else watchEquations();
})();
