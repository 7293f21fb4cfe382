/* A small DOM-based stand-in for the npm package "sanitize-html", aliased in its place
 * when the widget bundle is built (scripts/vendor_assets.sh).  @jupyter-widgets/base-manager
 * uses it only to clean widget descriptions that allow HTML, with an allow-list of tags
 * and attributes; this keeps that allow-list (everything else is dropped, the text of a
 * dropped element is kept, <script>/<style> are dropped with their content) without the
 * ~250 KB HTML parser the original package carries.
 */
const DROP_WITH_CONTENT = new Set(["script", "style", "textarea", "noscript", "iframe", "object", "template"]);
const SAFE_URL = /^(?:https?:|mailto:|data:image\/(?:png|jpeg|gif|webp);|[^:]*$)/i;

function allowedAttr(tag, name, allowed) {
  const lists = [allowed["*"] || [], allowed[tag] || []];
  return lists.some((list) => list.some((pat) =>
    pat.endsWith("*") ? name.startsWith(pat.slice(0, -1)) : pat === name));
}

function clean(node, tags, attrs) {
  for (const child of Array.from(node.childNodes)) {
    if (child.nodeType === 3) continue; // text
    if (child.nodeType !== 1) { child.remove(); continue; }
    const tag = child.tagName.toLowerCase();
    if (DROP_WITH_CONTENT.has(tag)) { child.remove(); continue; }
    clean(child, tags, attrs);
    if (!tags.includes(tag)) {
      child.replaceWith(...Array.from(child.childNodes));
      continue;
    }
    for (const a of Array.from(child.attributes)) {
      const name = a.name.toLowerCase();
      const url = name === "href" || name === "src";
      if (name.startsWith("on") || !allowedAttr(tag, name, attrs) ||
          (url && !SAFE_URL.test(a.value.trim()))) {
        child.removeAttribute(a.name);
      }
    }
  }
}

export default function sanitize(html, options = {}) {
  const doc = new DOMParser().parseFromString(`<body>${String(html)}</body>`, "text/html");
  clean(doc.body, options.allowedTags || [], options.allowedAttributes || {});
  return doc.body.innerHTML;
}
