(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("data").textContent);
  var draw = data.draw;
  var underlined = data.underlined || [6, 9];  // as on the tiles: numbers that read as others upside down
  var total = draw.length;
  var storeKey = "paperplay:streams:" + data.code + (data.variant ? ":" + data.variant : "");
  var SVG = document.querySelector("svg").namespaceURI;  // no URL in the page, not even a namespace
  var state = {turn: 0, grid: false, speak: false};
  var el = function (id) { return document.getElementById(id); };
  var T = data.text || {};  // the page's language: its words come with the data, English when absent
  var tr = function (key, english) { return T[key] || english; };

  function load() {
    try {
      var kept = JSON.parse(window.localStorage.getItem(storeKey) || "{}");
      if (typeof kept.turn === "number" && kept.turn >= 0 && kept.turn <= total) { state.turn = Math.floor(kept.turn); }
      state.grid = kept.grid === true;
      state.speak = kept.speak === true;
    } catch (e) { /* no storage (private mode): the page still works, without memory */ }
  }

  function save() {
    try { window.localStorage.setItem(storeKey, JSON.stringify(state)); } catch (e) { /* see load */ }
  }

  function star() {
    var svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("class", "star");
    svg.setAttribute("viewBox", "0 0 2 2");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", tr("wild", "wild"));
    var use = document.createElementNS(SVG, "use");
    use.setAttribute("href", "#star");
    use.setAttribute("width", "2");
    use.setAttribute("height", "2");
    svg.appendChild(use);
    return svg;
  }

  function fill(node, tile) {
    node.textContent = "";
    node.classList.toggle("u", underlined.indexOf(tile) >= 0);
    if (tile === "*") { node.appendChild(star()); } else { node.textContent = String(tile); }
    node.setAttribute("data-v", String(tile));
  }

  function say(tile) {
    if (!state.speak || !("speechSynthesis" in window)) { return; }
    window.speechSynthesis.cancel();
    var words = new window.SpeechSynthesisUtterance(tile === "*" ? tr("wild", "wild") : String(tile));
    words.lang = data.lang || "en";
    window.speechSynthesis.speak(words);
  }

  function render(fresh) {
    var turn = state.turn;
    el("turn").textContent = tr("turn", "turn {turn}/{total}").replace("{turn}", turn).replace("{total}", total);
    var tile = el("tile");
    if (turn === 0) {
      tile.textContent = "";
      tile.removeAttribute("data-v");
      el("note").textContent = tr("first", "Press Space, or tap the right half of the screen, for the first tile.");
    } else {
      fill(tile, draw[turn - 1]);
      var notes = [];
      if (draw[turn - 1] === "*") { notes.push(tr("wild_note", "The wild: write it in any box; it counts as any number.")); }
      if (turn === total) { notes.push(tr("last", "That was the last tile. Time to score the sheets.")); }
      el("note").textContent = notes.join(" ");
    }
    if (fresh) {
      tile.classList.remove("new");
      void tile.offsetWidth;
      tile.classList.add("new");
    }
    var order = el("order");
    order.textContent = "";
    var counts = {};
    for (var i = 0; i < turn; i++) {
      var item = document.createElement("li");
      fill(item, draw[i]);
      order.appendChild(item);
      counts[draw[i]] = (counts[draw[i]] || 0) + 1;
    }
    var cells = el("grid").children;
    for (var c = 0; c < cells.length; c++) {
      var n = counts[cells[c].getAttribute("data-v")] || 0;
      cells[c].classList.toggle("out", n > 0);
      cells[c].classList.toggle("twice", n > 1);
      cells[c].setAttribute("data-n", n > 1 ? "\u00d7" + n : "");
    }
    el("called-title").textContent = state.grid ? tr("sorted", "Out of the bag, sorted") : tr("called", "Called so far");
    el("order").hidden = state.grid;
    el("grid").hidden = !state.grid;
    el("b-list").setAttribute("aria-pressed", String(state.grid));
    el("b-speak").setAttribute("aria-pressed", String(state.speak));
    save();
  }

  function step(delta) {
    var turn = Math.min(total, Math.max(0, state.turn + delta));
    if (turn === state.turn) { return; }
    state.turn = turn;
    render(delta > 0);
    if (delta > 0) { say(draw[turn - 1]); }
  }

  function toggleHelp(show) {
    var help = el("help");
    var wasHidden = help.hidden;
    help.hidden = show === undefined ? !help.hidden : !show;
    el("b-help").setAttribute("aria-expanded", String(!help.hidden));
    // The dialog is modal: it takes the keyboard's focus while open and gives it back when closed.
    if (wasHidden && !help.hidden) { help.focus(); }
    if (!wasHidden && help.hidden && document.activeElement === help) { help.blur(); }
  }

  // Full screen by the standard calls, or Safari's older webkit ones; where there is neither (an iPhone),
  // the button is hidden and F does nothing.
  var root = document.documentElement;
  var enterFull = root.requestFullscreen || root.webkitRequestFullscreen;
  var exitFull = document.exitFullscreen || document.webkitExitFullscreen;

  function fullScreen() {
    if (!enterFull || !exitFull) { return; }
    var request = (document.fullscreenElement || document.webkitFullscreenElement)
      ? exitFull.call(document) : enterFull.call(root);
    if (request && request.catch) { request.catch(function () { /* refused: stay as we are */ }); }
  }

  function restart() {
    if (state.turn > 0 && window.confirm(tr("restart", "Start the game again from turn 0?"))) {
      state.turn = 0;
      render(false);
    }
  }

  var actions = {
    " ": function () { step(1); }, "Enter": function () { step(1); }, "ArrowRight": function () { step(1); },
    "PageDown": function () { step(1); }, "ArrowLeft": function () { step(-1); },
    "Backspace": function () { step(-1); }, "PageUp": function () { step(-1); },
    "f": fullScreen, "h": function () { toggleHelp(); }, "?": function () { toggleHelp(); },
    "Escape": function () { toggleHelp(false); },
    "g": function () { state.grid = !state.grid; render(false); },
    "s": function () { state.speak = !state.speak; render(false); }, "r": restart
  };

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    if (event.key === "Tab" && !el("help").hidden) { event.preventDefault(); return; }  // stays in the dialog
    var key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    var action = actions[key];
    if (!action) { return; }
    // A button with the keyboard's focus (Tab) is pressed by Enter and Space, as everywhere.
    if ((key === " " || key === "Enter") && event.target.closest && event.target.closest("button")) { return; }
    event.preventDefault();
    // A held key repeats: it must not call the tiles after it (a key held a moment too long, a clicker).
    if (event.repeat) { return; }
    // While the help is open, a key only closes it: Space must not call a tile the room was not to see yet.
    if (!el("help").hidden && key !== "h" && key !== "?") { toggleHelp(false); return; }
    action();
  });

  document.addEventListener("click", function (event) {
    var target = event.target;
    if (target.closest("button, .called, .bar, .foot")) { return; }
    if (!el("help").hidden) { toggleHelp(false); return; }
    step(event.clientX > window.innerWidth / 2 ? 1 : -1);
  });

  el("b-list").addEventListener("click", function (event) { event.currentTarget.blur(); actions.g(); });
  el("b-speak").addEventListener("click", function (event) { event.currentTarget.blur(); actions.s(); });
  el("b-full").addEventListener("click", function (event) { event.currentTarget.blur(); fullScreen(); });
  el("b-help").addEventListener("click", function (event) { event.currentTarget.blur(); toggleHelp(); });

  el("b-full").hidden = !enterFull || !exitFull;
  load();
  render(false);
}());
