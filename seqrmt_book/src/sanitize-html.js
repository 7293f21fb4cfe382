/* The interface of the npm package "sanitize-html", as @jupyter-widgets/base-manager calls
 * it (sanitize(html, {allowedTags, allowedAttributes}), to clean widget descriptions that
 * allow HTML), on DOMPurify: scripts/vendor_assets.sh aliases "sanitize-html" to this file
 * when the widget bundle is built, so that the ~250 KB HTML parser of the original package
 * is not bundled and the sanitizing is a maintained library's.
 *
 * The allow-list keeps sanitize-html's meaning: a tag not in allowedTags is dropped and its
 * text kept (<script>, <style> and the like go with their content); an attribute stays only
 * if allowedAttributes lists it for that tag or for "*" (a name ending in "*" is a prefix,
 * "aria-*"); href and src keep only http(s), mailto, relative URLs and (src) data:image
 * of PNG, JPEG, GIF or WebP.
 */
import DOMPurify from "dompurify";

const SAFE_URL = /^(?:(?:https?|mailto):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i;
const DATA_IMAGE = /^data:image\/(?:png|jpeg|gif|webp);/i;

const purify = DOMPurify(window);
let attributes = {};

function listed(tag, name) {
  return [attributes["*"] || [], attributes[tag] || []].some((list) =>
    list.some((pat) => (pat.endsWith("*") ? name.startsWith(pat.slice(0, -1)) : pat === name)),
  );
}

purify.addHook("uponSanitizeAttribute", (node, data) => {
  const name = data.attrName;
  if (!listed(node.nodeName.toLowerCase(), name)) {
    data.keepAttr = false;
  } else if ((name === "href" || name === "src") && data.attrValue.trim().toLowerCase().startsWith("data:")) {
    data.keepAttr = name === "src" && DATA_IMAGE.test(data.attrValue.trim());
  }
});

export default function sanitize(html, options = {}) {
  attributes = options.allowedAttributes || {};
  const names = Object.values(attributes).flat();
  try {
    return purify.sanitize(String(html), {
      ALLOWED_TAGS: options.allowedTags || [],
      ALLOWED_ATTR: names.filter((n) => !n.endsWith("*")),
      ALLOW_ARIA_ATTR: names.includes("aria-*"),
      ALLOW_DATA_ATTR: names.includes("data-*"),
      ALLOWED_URI_REGEXP: SAFE_URL,
      ADD_DATA_URI_TAGS: [],
    });
  } finally {
    attributes = {};
  }
}
