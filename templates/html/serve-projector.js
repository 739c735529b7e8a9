(function () {
  "use strict";
  var data = P.data;
  var el = P.el;
  var code = data.code;
  var shown = {turn: -1, sheets: "", revealed: false};
  var calling = false;

  function update(game) {
    var tiles = game.called;
    var total = game.turns;
    var turn = tiles.length;
    el("turn").textContent = P.tr("turn", {turn: turn, total: total});
    var meta = [];
    if (game.variant) { meta.push(P.tr("variant", {name: game.variant})); }
    if (game.seed) { meta.push(P.tr("seed", {seed: game.seed})); }  // revealed with the results
    el("variant").textContent = meta.length ? "· " + meta.join(" · ") : "";
    if (turn !== shown.turn) {
      var tile = el("tile");
      if (turn === 0) {
        tile.textContent = "";
        tile.removeAttribute("data-v");
      } else {
        P.fillTile(tile, tiles[turn - 1]);
        if (shown.turn >= 0) {
          tile.classList.remove("new");
          void tile.offsetWidth;
          tile.classList.add("new");
        }
      }
      var notes = [];
      if (turn === 0) { notes.push(P.tr("first")); }
      if (turn > 0 && tiles[turn - 1] === "*") { notes.push(P.tr("wild_note")); }
      if (turn === total) { notes.push(P.tr("last")); }
      el("note").textContent = notes.join(" ");
      P.tileList(el("order"), tiles);
      shown.turn = turn;
    }
    var sheets = game.handed_in;
    var names = JSON.stringify(sheets.map(function (s) { return s.name; }));
    if (names !== shown.sheets) {
      var list = el("handed");
      list.textContent = "";
      sheets.forEach(function (sheet) {
        var item = document.createElement("li");
        item.textContent = sheet.name;
        list.appendChild(item);
      });
      shown.sheets = names;
    }
    el("in").textContent = P.tr("in", {n: sheets.length, players: game.players});
    if (game.revealed && game.version !== shown.version) {
      // After the reveal too: a host's correction changes the results, and the projector follows it.
      shown.version = game.version;
      // The boxes of every sheet, once revealed, come with the projector's view token (or the host's key).
      var view = new URLSearchParams(window.location.search).get("view") || "";
      var boxes = P.key || view ? P.api("GET", P.gamePath(code, "/sheets" + (P.key ? "" : "?view=" + encodeURIComponent(view))))
        : Promise.resolve({sheets: []});
      return Promise.all([P.api("GET", P.gamePath(code, "/results")), boxes]).then(function (answers) {
        var cells = {};
        answers[1].sheets.forEach(function (sheet) {
          cells["sheet-" + sheet.id + ".json"] = sheet.boxes.map(function (b) { return b.value; });
        });
        reveal(answers[0], cells);
        shown.revealed = true;
        return false;  // a host's correction after the reveal is shown too
      });
    }
    return false;
  }

  // The results page, live: the ranking, then each sheet's train with its series.
  function reveal(document_, cells) {
    P.ranking(el("ranking"), document_.ranking || []);
    el("ranking").classList.toggle("few", (document_.ranking || []).length <= 5);
    el("turn").textContent = P.tr("results");
    if (!(document_.ranking || []).length) { el("ranking").textContent = P.tr("no_ranking"); }
    var trains = el("trains");
    trains.textContent = "";
    // In the ranking's order (valid sheets by total, as the results page orders them), then the rest.
    var all = document_.results || [];
    var valid = all.filter(function (r) { return r.valid === true; }).sort(function (a, b) { return b.total - a.total; });
    var places = {};
    valid.forEach(function (r, i) { places[r.file] = (document_.ranking[i] || {}).place; });
    var results = valid.concat(all.filter(function (r) { return r.valid !== true; }));
    results.forEach(function (result) {
      var row = document.createElement("article");
      row.className = "sheet " + (result.valid ? "ok" : "bad");
      var who = document.createElement("div");
      who.className = "who";
      var name = document.createElement("h3");
      var place = document.createElement("span");
      place.className = "place";
      place.textContent = places[result.file] === undefined ? "\u2013" : String(places[result.file]);
      var named = document.createElement("span");
      named.className = "name";
      named.textContent = result.player || result.file;
      name.appendChild(place);
      name.appendChild(named);
      var line = document.createElement("p");
      if (result.error) {
        line.textContent = result.error;
        who.appendChild(name);
        who.appendChild(line);
        row.appendChild(who);
        trains.appendChild(row);
        return;
      }
      line.appendChild(P.pointsNode(result.total));
      line.appendChild(document.createTextNode(" "));
      var verdict = document.createElement("span");
      verdict.className = "verdict";
      verdict.textContent = P.tr(result.valid ? "valid" : "not_valid");
      line.appendChild(verdict);
      who.appendChild(name);
      who.appendChild(line);
      row.appendChild(who);
      if (cells[result.file] && result.series) {
        var strip = document.createElement("div");
        strip.className = "strip";
        strip.appendChild(P.train(cells[result.file], result));
        row.appendChild(strip);
      }
      trains.appendChild(row);
    });
    document.body.classList.add("revealed");
    el("results").hidden = false;
    el("stage").hidden = true;
  }

  P.receiveKey();  // opened from the host page: Space or → calls the next tile
  P.watch(code, update, function (error) {
    el("note").textContent = error ? error.message : "";
  });

  function next() {
    if (calling || !P.key || shown.revealed) { return; }
    calling = true;
    P.api("POST", P.gamePath(code, "/call"), {turn: shown.turn + 1}).then(function () {
      calling = false;
    }, function (error) {
      calling = false;
      el("note").textContent = error.message;
    });
  }

  var root = document.documentElement;
  var enterFull = root.requestFullscreen || root.webkitRequestFullscreen;
  var exitFull = document.exitFullscreen || document.webkitExitFullscreen;

  function fullScreen() {
    if (!enterFull || !exitFull) { return; }
    var request = (document.fullscreenElement || document.webkitFullscreenElement)
      ? exitFull.call(document) : enterFull.call(root);
    if (request && request.catch) { request.catch(function () { /* refused: stay as we are */ }); }
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) { return; }
    var key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if ((key === " " || key === "Enter") && event.target.closest && event.target.closest("button")) { return; }
    if (key === " " || key === "Enter" || key === "ArrowRight" || key === "PageDown") {
      event.preventDefault();
      next();
    } else if (key === "f") {
      fullScreen();
    }
  });
  el("b-full").hidden = !enterFull || !exitFull;
  el("b-full").addEventListener("click", function (event) { event.currentTarget.blur(); fullScreen(); });
}());
