/* seqrmt: a small, self-contained renderer for the saved ipywidgets state of the
 * book's pages (built into static/seqrmt/vendor/widgets/ by scripts/vendor_assets.sh
 * with esbuild; see seqrmt_book/README.md).
 *
 * It bundles only what the book's widgets need: @jupyter-widgets/base and
 * @jupyter-widgets/controls (ipywidgets 8 models and views), the ManagerBase of
 * @jupyter-widgets/base-manager, and a minimal Output widget that shows the saved
 * image/text outputs (no JupyterLab rendermime, no ipywidgets 7 compatibility copy,
 * no RequireJS: the published embed-amd.js carries all of those, 4.4 MB).
 *
 * window.seqrmtWidgets.render(state, root) renders every
 * <script type="application/vnd.jupyter.widget-view+json"> under root whose model is
 * in `state`, exactly as @jupyter-widgets/html-manager does (a div.widget-subarea
 * inserted before the view tag).  window.seqrmtWidgets.sanitize is the sanitizer of widget
 * descriptions that allow HTML (src/sanitize-html.js, on DOMPurify), for the tests.
 */
import * as base from "@jupyter-widgets/base";
import * as controls from "@jupyter-widgets/controls";
import { ManagerBase } from "@jupyter-widgets/base-manager";
import { MessageLoop } from "@lumino/messaging";
import { Widget } from "@lumino/widgets";
import sanitize from "sanitize-html";
import "@lumino/widgets/style/index.css";
import "@jupyter-widgets/controls/css/widgets-base.css";
import "@jupyter-widgets/controls/css/labvariables.css";

const OUTPUT_MODULE = "@jupyter-widgets/output";

/* Output widget, static version: shows the outputs saved in the state. */
class OutputModel extends base.DOMWidgetModel {
  defaults() {
    return {
      ...super.defaults(),
      _model_name: "OutputModel",
      _view_name: "OutputView",
      _model_module: OUTPUT_MODULE,
      _view_module: OUTPUT_MODULE,
      _model_module_version: "1.0.0",
      _view_module_version: "1.0.0",
      msg_id: "",
      outputs: [],
    };
  }
}

class OutputView extends base.DOMWidgetView {
  render() {
    this.el.classList.add("jupyter-widgets", "widget-output");
    this.listenTo(this.model, "change:outputs", this.update);
    this.update();
  }

  update() {
    const el = this.el;
    el.textContent = "";
    for (const out of this.model.get("outputs") || []) {
      const data = out.data || {};
      const meta = out.metadata || {};
      const image = ["image/png", "image/jpeg", "image/webp"].find((t) => data[t]);
      if (image) {
        const img = document.createElement("img");
        img.src = `data:${image};base64,${String(data[image]).replace(/\s/g, "")}`;
        const alt = (meta[image] && meta[image].alt) || meta.alt || (data["text/plain"] || "");
        img.alt = Array.isArray(alt) ? alt.join("") : String(alt);
        img.style.maxWidth = "100%";
        el.appendChild(img);
      } else if (data["text/html"]) {
        const div = document.createElement("div");
        div.innerHTML = [].concat(data["text/html"]).join("");
        el.appendChild(div);
      } else if (out.text !== undefined || data["text/plain"] !== undefined) {
        const pre = document.createElement("pre");
        pre.textContent = [].concat(out.text !== undefined ? out.text : data["text/plain"]).join("");
        el.appendChild(pre);
      }
    }
    return super.update();
  }
}

const MODULES = {
  "@jupyter-widgets/base": base,
  "@jupyter-widgets/controls": controls,
  [OUTPUT_MODULE]: { OutputModel, OutputView },
};

class StaticManager extends ManagerBase {
  constructor() {
    super();
    this.views = new Set();
    window.addEventListener("resize", () => {
      this.views.forEach((v) =>
        MessageLoop.postMessage(v.luminoWidget || v.pWidget, Widget.ResizeMessage.UnknownSize));
    });
  }

  loadClass(className, moduleName, moduleVersion) {
    const mod = MODULES[moduleName];
    if (mod && mod[className]) return Promise.resolve(mod[className]);
    return Promise.reject(new Error(
      `widget class ${moduleName}@${moduleVersion}:${className} is not in the book's widget bundle`));
  }

  _get_comm_info() {
    return Promise.resolve({});
  }

  _create_comm() {
    return Promise.resolve({ on_close() {}, on_msg() {}, close() {} });
  }

  async display_view(view, el) {
    const v = await view;
    Widget.attach(v.luminoWidget || v.pWidget, el);
    this.views.add(v);
    v.once("remove", () => this.views.delete(v));
    return v;
  }
}

async function render(state, root = document) {
  const manager = new StaticManager();
  const models = await manager.set_state(state);
  const byId = new Map(models.map((m) => [m.model_id, m]));
  const tags = Array.from(root.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]'));
  const views = [];
  for (const tag of tags) {
    const model = byId.get(JSON.parse(tag.textContent).model_id);
    if (!model || !tag.parentElement) continue;
    const prev = tag.previousElementSibling;
    if (prev && prev.classList.contains("widget-subarea")) continue; // already rendered
    const area = document.createElement("div");
    area.className = "widget-subarea";
    tag.parentElement.insertBefore(area, tag);
    views.push(manager.create_view(model).then((view) => manager.display_view(view, area)));
  }
  return Promise.all(views);
}

window.seqrmtWidgets = { render, sanitize, version: "1" };
