/* seqrmt: previews of cross-references (see seqrmt_book/previews.py).
 *
 * A link with class seqrmt-has-preview to "<page>#<id>" shows that statement (its math typeset
 * when the site was built) in a role="tooltip" box when the pointer rests on it or when it
 * gets keyboard focus.  The box stays while the pointer is over the link or the box,
 * disappears when both are left or focus moves on, and Escape dismisses it.  The previews
 * are in _static/seqrmt-previews/<page>_<id>.js, one per statement, each loaded on the
 * first hover or focus of a link to it as a plain <script> (works over file:// too).
 */
(function () {
  "use strict";
  if (!document.querySelector("a.seqrmt-has-preview")) return;
  /* The statement a link points to: "<page, relative to the site's root>#<id>". */
  var root = new URL(document.documentElement.getAttribute("data-content_root") || "./", location.href);
  function keyOf(link) {
    var url = new URL(link.getAttribute("href"), location.href);
    var page = url.pathname.slice(root.pathname.length);
    return decodeURIComponent(page) + url.hash;
  }
  var here = (document.currentScript && document.currentScript.src) || "";
  var base = here.replace(/previews\.js(\?.*)?$/, "");          // .../_static/seqrmt/
  var styled = false;
  var loads = {};                  // key -> "loading" | "ready" | "error"
  var waiting = {};
  var tip = null, current = null, showTimer = 0, hideTimer = 0;

  function fileName(key) { return key.replace(/[^A-Za-z0-9_-]/g, "_") + ".js"; }

  function style() {
    if (styled || !base) return;
    styled = true;
    if (!document.querySelector('link[href*="seqrmt/math.css"]')) {
      var math = document.createElement("link");
      math.rel = "stylesheet";
      math.href = base + "math.css";
      document.head.appendChild(math);
    }
    var css = document.createElement("link");
    css.rel = "stylesheet";
    css.href = base + "previews.css";
    document.head.appendChild(css);
  }

  /* The preview of one statement: _static/seqrmt-previews/<file>.js, a plain script. */
  function load(key, then) {
    style();
    if (loads[key] === "ready") { then(); return; }
    (waiting[key] = waiting[key] || []).push(then);
    if (loads[key]) return;
    loads[key] = "loading";
    var s = document.createElement("script");
    s.src = base + "../seqrmt-previews/" + fileName(key);
    s.onload = function () {
      loads[key] = "ready";
      document.documentElement.setAttribute("data-seqrmt-previews", "ready");
      waiting[key].splice(0).forEach(function (f) { f(); });
    };
    s.onerror = function () { loads[key] = "error"; };
    document.head.appendChild(s);
  }

  function box() {
    if (tip) return tip;
    tip = document.createElement("div");
    tip.id = "seqrmt-preview";
    tip.className = "seqrmt-preview";
    tip.setAttribute("role", "tooltip");
    tip.hidden = true;
    tip.addEventListener("mouseenter", function () { clearTimeout(hideTimer); });
    tip.addEventListener("mouseleave", function () { hideSoon(); });
    document.body.appendChild(tip);
    return tip;
  }

  function place(link) {
    var r = link.getBoundingClientRect();
    var vw = document.documentElement.clientWidth, vh = window.innerHeight;
    var width = Math.min(576, vw - 16);
    tip.style.maxWidth = width + "px";
    var left = Math.max(8, Math.min(r.left, vw - width - 8));
    tip.style.left = (left + window.scrollX) + "px";
    var below = vh - r.bottom, above = r.top;
    tip.style.maxHeight = Math.max(120, Math.min(0.6 * vh, Math.max(below, above) - 16)) + "px";
    tip.style.top = "0px";
    var h = tip.offsetHeight;
    var top = (below >= h + 8 || below >= above) ? r.bottom + 6 : r.top - h - 6;
    tip.style.top = (Math.max(4, top) + window.scrollY) + "px";
  }

  function show(link) {
    var key = keyOf(link);
    var html = (window.seqrmtPreviews || {})[key];
    if (!html) return;
    clearTimeout(hideTimer);
    if (current && current !== link) current.removeAttribute("aria-describedby");
    box().innerHTML = html;
    tip.hidden = false;
    current = link;
    link.setAttribute("aria-describedby", tip.id);
    place(link);
  }

  function hide() {
    clearTimeout(showTimer);
    clearTimeout(hideTimer);
    if (tip) tip.hidden = true;
    if (current) current.removeAttribute("aria-describedby");
    current = null;
  }

  function hideSoon() {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(hide, 250);
  }

  function linkOf(target) {
    return target && target.closest ? target.closest("a.seqrmt-has-preview") : null;
  }

  document.addEventListener("mouseover", function (e) {
    var link = linkOf(e.target);
    if (!link) return;
    clearTimeout(hideTimer);
    clearTimeout(showTimer);
    showTimer = setTimeout(function () {
      load(keyOf(link), function () { show(link); });
    }, 200);
  });
  document.addEventListener("mouseout", function (e) {
    var link = linkOf(e.target);
    if (link && !link.contains(e.relatedTarget)) { clearTimeout(showTimer); hideSoon(); }
  });
  document.addEventListener("focusin", function (e) {
    var link = linkOf(e.target);
    if (link) load(keyOf(link),
                   function () { if (document.activeElement === link) show(link); });
    else if (current && !(tip && tip.contains(e.target))) hide();
  });
  document.addEventListener("focusout", function (e) {
    if (linkOf(e.target) === current) hideSoon();
  });
  document.addEventListener("keydown", function (e) {
    if ((e.key === "Escape" || e.key === "Esc") && tip && !tip.hidden) {
      hide();
    }
  });
  window.addEventListener("scroll", function () { if (current && tip && !tip.hidden) place(current); },
                          { passive: true });
})();
