/* seqrmt: self-check questions, checked in the page (no kernel, no server).
 *
 * Markup written by seqrmt_book/selfcheck.py: <div class="self-check"
 * data-kind="number|choice" data-answer=...> with a form (a text field, or radio buttons
 * in a fieldset), hidden feedback blocks <div class="self-check-feedback" data-for=KEY>
 * (their math typeset when the site was built) and a live region
 * <div class="self-check-result" role="status">.  "Check" (or Enter) puts the verdict and
 * the matching explanation into the live region, which screen readers announce:
 *   number: right within data-tolerance; a wrong answer near the value of a known
 *           misconception (data-value) gets that explanation, any other the "otherwise" one;
 *   choice: the explanation of the chosen option.
 * The answer is not in the page in plain form (selfcheck.py): data-answer holds salted FNV-1a
 * hashes (data-salt) of the right option's id, or of the places k = round(x / data-step) of the
 * right numbers; a number's printed answer and its side are in data-sealed (XOR-ed with a key
 * stream drawn from the salt, base64).
 */
(function () {
  "use strict";

  function fnv1a(text) {
    var bytes = new TextEncoder().encode(text), h = 0x811c9dc5;
    for (var i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193) >>> 0;
    return ("0000000" + h.toString(16)).slice(-8);
  }

  function unseal(box) {
    var salt = box.getAttribute("data-salt"), raw = atob(box.getAttribute("data-sealed") || "");
    var out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) {
      var word = parseInt(fnv1a(salt + "#" + Math.floor(i / 4)), 16);
      out[i] = raw.charCodeAt(i) ^ ((word >>> (8 * (i % 4))) & 0xff);
    }
    return JSON.parse(new TextDecoder().decode(out));
  }

  function hashes(box) {
    return (box.getAttribute("data-answer") || "").split(/\s+/);
  }

  /* Whether a reader's answer (a number, or an option's id) is right. */
  function isRight(box, value) {
    var salt = box.getAttribute("data-salt");
    if (box.getAttribute("data-kind") === "number") {
      var k = Math.round(value / parseFloat(box.getAttribute("data-step")));
      return isFinite(k) && hashes(box).indexOf(fnv1a(salt + ":" + String(k))) >= 0;
    }
    return hashes(box).indexOf(fnv1a(salt + ":" + value)) >= 0;
  }
  /* for the tests and for readers' tools: the same checks the form makes */
  window.seqrmtSelfCheck = {isRight: isRight, sealed: unseal};

  function parseNumber(text) {
    var t = String(text).trim().replace(/\u2212/g, "-").replace(/\s+/g, "");
    if (/^[-+]?\d+,\d+$/.test(t)) t = t.replace(",", ".");   // a decimal comma
    var frac = t.match(/^([-+]?\d*\.?\d+(?:e[-+]?\d+)?)\/(\d*\.?\d+(?:e[-+]?\d+)?)$/i);
    if (frac) {
      var den = parseFloat(frac[2]);
      return den === 0 ? NaN : parseFloat(frac[1]) / den;
    }
    if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t)) return NaN;
    return parseFloat(t);
  }

  function feedbackFor(box, key) {
    var all = box.querySelectorAll(".self-check-feedback");
    for (var i = 0; i < all.length; i++) if (all[i].getAttribute("data-for") === key) return all[i];
    return null;
  }

  function show(box, state, verdict, blocks) {
    var out = box.querySelector(".self-check-result");
    out.textContent = "";
    var p = document.createElement("p");
    p.className = "self-check-verdict";
    var strong = document.createElement("strong");
    strong.textContent = verdict;
    p.appendChild(strong);
    out.appendChild(p);
    blocks.forEach(function (b) {
      if (!b) return;
      var copy = b.cloneNode(true);
      copy.removeAttribute("hidden");
      copy.removeAttribute("data-for");
      copy.removeAttribute("data-value");
      copy.className = "self-check-explanation";
      out.appendChild(copy);
    });
    box.setAttribute("data-state", state);
  }

  function checkNumber(box) {
    var input = box.querySelector(".self-check-input");
    var x = parseNumber(input.value);
    var sealed = unseal(box);
    var tol = parseFloat(box.getAttribute("data-tolerance"));
    if (!isFinite(x)) {
      input.setAttribute("aria-invalid", "true");
      show(box, "invalid", "Please enter a number, for example 0.25, -1.5 or 3/4.", []);
      return;
    }
    input.removeAttribute("aria-invalid");
    if (isRight(box, x)) {
      show(box, "right", "Right: " + sealed.display + ".",
           [feedbackFor(box, "correct")]);
      return;
    }
    var mistakes = box.querySelectorAll(".self-check-feedback[data-value]");
    for (var i = 0; i < mistakes.length; i++) {
      if (Math.abs(x - parseFloat(mistakes[i].getAttribute("data-value"))) <= tol) {
        show(box, "wrong", "Not quite: " + input.value.trim() + " is what a common mistake gives.",
             [mistakes[i]]);
        return;
      }
    }
    show(box, "wrong", "Not quite: " + input.value.trim() + " is too " + (x > sealed.answer ? "large" : "small") +
         ". Try again.", [feedbackFor(box, "otherwise")]);
  }

  function checkChoice(box) {
    var chosen = box.querySelector('input[type="radio"]:checked');
    if (!chosen) {
      show(box, "invalid", "Please choose one of the answers first.", []);
      return;
    }
    var right = isRight(box, chosen.value);
    var blocks = [feedbackFor(box, chosen.value)];
    if (right) blocks.push(feedbackFor(box, "correct"));
    else blocks.push(feedbackFor(box, "otherwise"));
    show(box, right ? "right" : "wrong", right ? "Right." : "Not quite. Try again.", blocks);
  }

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll(".self-check"), function (box) {
      var form = box.querySelector(".self-check-form");
      if (!form || form.__seqrmtSelfCheck) return;
      form.__seqrmtSelfCheck = true;
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        if (box.getAttribute("data-kind") === "number") checkNumber(box);
        else checkChoice(box);
      });
      box.setAttribute("data-ready", "true");
    });
    document.documentElement.setAttribute("data-seqrmt-selfcheck", "ready");
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
