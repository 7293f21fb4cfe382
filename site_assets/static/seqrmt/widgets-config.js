/* seqrmt: glue between the book and the vendored ipywidgets HTML manager
 * (_static/seqrmt/vendor/html-manager/embed-amd.js, @jupyter-widgets/html-manager 1.0.6).
 * Loaded on widget pages after require.js and before embed-amd.js (see
 * nb_ipywidgets_js in _config.yml).
 */
(function () {
  "use strict";
  var here = document.currentScript && document.currentScript.src;
  if (here) {
    var dist = new URL("vendor/html-manager/", here).href;
    /* The widget CSS in embed-amd.js requests its Font Awesome fonts relative to
     * the AMD module's URL, "<page dir>/@jupyter-widgets/html-manager/dist/" by
     * default, which does not exist on a static site (404s).  Map that module
     * path to the vendored folder, which holds the fonts. */
    if (window.require && window.require.config) {
      window.require.config({
        paths: { "@jupyter-widgets/html-manager/dist": dist.replace(/\/$/, "") }
      });
    }
    window.__jupyter_widgets_assets_path__ = dist;
  }

  /* The theme's Font Awesome (SVG mode) replaces the <i> icons of widgets such as
   * Play with <svg>, which the widget code then fails to find; nest instead. */
  window.FontAwesomeConfig = window.FontAwesomeConfig || {};
  window.FontAwesomeConfig.autoReplaceSvg = "nest";

  /* The widget labels call the MathJax 2 API (MathJax.Hub.Queue) whenever
   * window.MathJax exists; the book uses MathJax 3, so that threw "Cannot read
   * properties of undefined (reading 'Queue')".  Provide a MathJax 3 version.
   * This listener is registered before embed-amd.js registers its own, so it
   * runs first; MathJax (a deferred script) is loaded by then. */
  window.addEventListener("load", function () {
    var MJ = window.MathJax;
    if (!MJ || MJ.Hub || typeof MJ.typesetPromise !== "function") return;
    MJ.Hub = {
      Queue: function () {
        Array.prototype.forEach.call(arguments, function (cmd) {
          if (Array.isArray(cmd) && cmd[0] === "Typeset") {
            var el = cmd[2];
            var ready = MJ.startup && MJ.startup.promise ? MJ.startup.promise : Promise.resolve();
            ready.then(function () {
              return MJ.typesetPromise(el ? [el] : undefined);
            }).catch(function (err) { console.warn("MathJax typeset failed", err); });
          }
        });
      }
    };
  });
})();
