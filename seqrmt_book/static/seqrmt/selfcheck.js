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
 */
(function () {
  "use strict";

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
    var answer = parseFloat(box.getAttribute("data-answer"));
    var tol = parseFloat(box.getAttribute("data-tolerance"));
    if (!isFinite(x)) {
      input.setAttribute("aria-invalid", "true");
      show(box, "invalid", "Please enter a number, for example 0.25, -1.5 or 3/4.", []);
      return;
    }
    input.removeAttribute("aria-invalid");
    if (Math.abs(x - answer) <= tol) {
      show(box, "right", "Right: " + box.getAttribute("data-display") + ".",
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
    show(box, "wrong", "Not quite: " + input.value.trim() + " is too " + (x > answer ? "large" : "small") +
         ". Try again.", [feedbackFor(box, "otherwise")]);
  }

  function checkChoice(box) {
    var chosen = box.querySelector('input[type="radio"]:checked');
    if (!chosen) {
      show(box, "invalid", "Please choose one of the answers first.", []);
      return;
    }
    var right = chosen.value === box.getAttribute("data-answer");
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
