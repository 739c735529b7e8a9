(function () {
  "use strict";
  // The check page of a scanned sheet: a flagged box takes a candidate in one click (or a typed value);
  // the corrected sheet is saved as its JSON file, or copied as a `paperplay score --cells` line.
  var data = JSON.parse(document.getElementById("data").textContent);
  var cells = data.sheet.cells.slice();
  var el = function (id) { return document.getElementById(id); };
  var VALID = /^(\*|x|X|[1-9]|[12][0-9]|30)$/;

  function quoted(list) { return "\"" + list.join(" ") + "\""; }

  function line() {
    var parts = ["paperplay score --cells " + quoted(cells)];
    if (data.sheet.seed) { parts.push("--seed " + data.sheet.seed); }
    else if (data.sheet.draw) { parts.push("--draw " + quoted(data.sheet.draw).replace(/ /g, ",")); }
    return parts.join(" ");
  }

  function refresh() {
    var sheet = {};
    Object.keys(data.sheet).forEach(function (k) { sheet[k] = data.sheet[k]; });
    sheet.cells = cells;
    el("line").value = line();
    el("save").href = "data:application/json;charset=utf-8," + encodeURIComponent(JSON.stringify(sheet) + "\n");
    var open = document.querySelectorAll("li.flag:not(.done)").length;
    el("left").textContent = open === 0 ? "Every flagged box is checked." :
      open + " flagged box" + (open === 1 ? "" : "es") + " left to check.";
  }

  function show(item, value) {
    var shown = item.querySelector("b .v");
    if (value === "*") { shown.textContent = ""; shown.appendChild(el("wild").content.cloneNode(true)); }
    else { shown.textContent = String(value); }
  }

  function choose(item, value, button) {
    var box = Number(item.getAttribute("data-box"));
    cells[box - 1] = value === "*" ? "*" : Number(value);
    item.querySelectorAll(".pick button").forEach(function (b) { b.setAttribute("aria-pressed", String(b === button)); });
    item.classList.add("done");
    show(item, cells[box - 1]);
    refresh();
  }

  document.querySelectorAll("li.flag").forEach(function (item) {
    item.querySelectorAll(".pick button").forEach(function (button) {
      button.addEventListener("click", function () { choose(item, button.getAttribute("data-v"), button); });
    });
    var typed = item.querySelector(".pick input");
    typed.addEventListener("change", function () {
      var v = typed.value.trim();
      if (!VALID.test(v)) { typed.setCustomValidity("1-30 or *"); typed.reportValidity(); return; }
      typed.setCustomValidity("");
      choose(item, v === "x" || v === "X" ? "*" : v, null);
    });
  });

  el("copy").addEventListener("click", function () {
    var text = el("line").value;
    var said = function (words) { el("said").textContent = words; };
    var fallback = function () {
      el("line").select();
      try { said(document.execCommand("copy") ? "Copied." : "Selected: copy it with Ctrl+C."); }
      catch (e) { said("Selected: copy it with Ctrl+C."); }
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(function () { said("Copied."); }, fallback);
    } else { fallback(); }
  });
  refresh();
}());
