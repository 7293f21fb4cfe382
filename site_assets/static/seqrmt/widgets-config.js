/* seqrmt: configuration read by the vendored ipywidgets HTML manager
 * (site_assets/static/vendor/html-manager/embed-amd.js).  Loaded on widget pages
 * after require.js and before embed-amd.js (see nb_ipywidgets_js in _config.yml).
 *
 * The widget CSS inside embed-amd.js requests its Font Awesome icon fonts from
 * __webpack_public_path__, which defaults to "<page dir>/@jupyter-widgets/
 * html-manager/dist/" (a 404 on a static site).  Point it at the vendored copy,
 * which sits next to embed-amd.js.
 */
(function () {
  var here = document.currentScript && document.currentScript.src;
  if (here) {
    window.__jupyter_widgets_assets_path__ =
      new URL("../vendor/html-manager/", here).href;
  }
  /* The theme's Font Awesome (SVG mode) replaces the <i> icons of widgets such as
   * Play with <svg>, which the widget code then fails to find; nest instead. */
  window.FontAwesomeConfig = window.FontAwesomeConfig || {};
  window.FontAwesomeConfig.autoReplaceSvg = "nest";
})();
