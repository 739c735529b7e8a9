(function () {
  "use strict";
  var data = P.data;
  var el = P.el;
  var code = data.code;
  var storeKey = "paperplay:serve:" + code;
  // What this phone handed in: the sheet's id, its owner's token, the name and the boxes as last read.
  var mine = P.load(storeKey);
  var done = false;
  var called = [];  // the tiles called so far (the game's state says)
  var pendingKey = null;  // a hand-in's Idempotency-Key, kept while its answer may have been lost
  var opened = null;  // a sure box the player tapped to change

  function errorAt(id, message) { P.say(el(id), message); }

  // The boxes as the server read them: value, flag, candidates and crop, whichever the answer holds.
  function boxesOf(sheet) {
    var boxes = sheet.boxes;
    if (!boxes) {
      boxes = (sheet.cells || []).map(function (value, k) { return {box: k + 1, value: value}; });
    }
    return boxes.map(function (b, k) {
      return {box: b.box || k + 1, value: b.value, flagged: b.flagged === true,
              candidates: b.candidates || [], crop: b.crop || null, why: b.why || ""};
    });
  }

  function cellsOf(boxes) { return boxes.map(function (b) { return b.value; }); }

  function keep(sheet) {
    mine = {id: sheet.id, token: sheet.token || (mine && mine.token), name: sheet.name, boxes: boxesOf(sheet)};
    P.save(storeKey, mine);
  }

  // What a flagged box may hold: the readings of the photo, then the tiles called that no other box holds.
  function choicesFor(b) {
    var left = called.slice();
    mine.boxes.forEach(function (other) {
      if (other.box === b.box) { return; }
      var at = left.indexOf(other.value);
      if (at >= 0) { left.splice(at, 1); }
    });
    var values = [b.value].concat(b.candidates, left.length <= 6 ? left : []);
    return values.filter(function (v, i) { return v !== null && v !== undefined && values.indexOf(v) === i; });
  }

  function showSheet() {
    el("join").hidden = true;
    el("sheet").hidden = false;
    el("hello").textContent = P.tr("hello", {name: mine.name || ""});
    var list = el("read");
    list.textContent = "";
    mine.boxes.forEach(function (b) {
      var item = document.createElement("li");
      item.id = "box-" + b.box;
      if (b.flagged) { item.className = "flag"; }
      // Each box is a button: a tap asks again what it holds (a sure box can be wrong too).
      var button = document.createElement("button");
      button.type = "button";
      button.disabled = done;
      var number = document.createElement("small");
      number.textContent = String(b.box);
      var value = document.createElement("span");
      P.fillTile(value, b.value);
      button.appendChild(number);
      button.appendChild(value);
      button.setAttribute("aria-label", P.tr("box", {box: b.box}) + ": " + (b.value === "*" ? P.tr("wild") : b.value)
                          + (b.flagged ? " (" + P.tr("unsure") + ")" : ""));
      button.addEventListener("click", function () {
        opened = b.box;
        showSheet();
        var card = el("check-" + b.box);
        if (card) { card.querySelector("button").focus(); }
      });
      item.appendChild(button);
      list.appendChild(item);
    });
    var checks = mine.boxes.filter(function (b) { return b.flagged || b.box === opened; });
    var flagged = checks.filter(function (b) { return b.flagged; });
    P.say(el("sheet-status"), flagged.length ? P.tr("check") : (done ? "" : P.tr("all_sure")));
    var flags = el("flags");
    flags.textContent = "";
    if (!done) { checks.forEach(function (b) { flags.appendChild(flagCard(b)); }); }
  }

  function tileButton(value, box) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "choice";
    P.fillTile(button, value);
    button.addEventListener("click", function () {
      var b = mine.boxes[box - 1];
      if (!b.flagged && b.value === value) { opened = null; showSheet(); return; }  // kept as it was
      fix(box, value);
    });
    return button;
  }

  // One flagged box: its crop from the photo and what it may hold, each a button (one tap settles it).
  function flagCard(b) {
    var card = document.createElement("fieldset");
    card.className = "check";
    card.id = "check-" + b.box;
    var legend = document.createElement("legend");
    legend.textContent = P.tr("what", {box: b.box});
    card.appendChild(legend);
    if (b.crop) {
      var crop = document.createElement("img");
      crop.src = b.crop;
      crop.alt = P.tr("box", {box: b.box});
      crop.className = "crop";
      card.appendChild(crop);
    }
    var choices = document.createElement("div");
    choices.className = "choices";
    choicesFor(b).forEach(function (v) { choices.appendChild(tileButton(v, b.box)); });
    card.appendChild(choices);
    var other = document.createElement("form");
    other.className = "other";
    var label = document.createElement("label");
    label.textContent = P.tr("other");
    var input = document.createElement("input");
    input.type = "text";
    input.inputMode = "tel";
    input.maxLength = 3;
    input.autocomplete = "off";
    input.id = "other-" + b.box;
    label.htmlFor = input.id;
    var ok = document.createElement("button");
    ok.type = "submit";
    ok.textContent = P.tr("ok");
    other.appendChild(label);
    other.appendChild(input);
    other.appendChild(ok);
    other.addEventListener("submit", function (event) {
      event.preventDefault();
      var value = tile(input.value);
      if (value === null) {
        errorAt("sheet-error", P.tr(input.value.trim() ? "bad_box" : "need_box", {box: b.box, value: input.value.trim()}));
        input.focus();
        return;
      }
      fix(b.box, value);
    });
    card.appendChild(other);
    return card;
  }

  // A typed box: a whole number, or the wild as * (x and X too, as `paperplay score --cells` reads them).
  function tile(typed) {
    var value = typed.trim();
    if (value === "*" || value === "x" || value === "X" || value === "\u2605") { return "*"; }
    if (/^[0-9]{1,3}$/.test(value)) { return parseInt(value, 10); }
    return null;
  }

  function fix(box, value) {
    var cells = {};
    cells[String(box)] = value;
    errorAt("sheet-error", "");
    var buttons = document.querySelectorAll("#check-" + box + " button");
    Array.prototype.forEach.call(buttons, function (b) { b.disabled = true; });
    P.api("PUT", P.gamePath(code, "/sheets/" + encodeURIComponent(mine.id)), {cells: cells},
          {"X-Paperplay-Token": mine.token}).then(function (sheet) {
      opened = null;
      keep(sheet);
      showSheet();
      P.say(el("sheet-status"), P.tr("saved", {box: box, value: value}) + " "
            + (mine.boxes.some(function (b) { return b.flagged; }) ? P.tr("check") : P.tr("all_sure")));
      var nextCheck = document.querySelector("#flags .check button");
      if (nextCheck) { nextCheck.focus(); } else { el("sheet-status").focus(); }
    }, function (error) {
      Array.prototype.forEach.call(buttons, function (b) { b.disabled = false; });
      errorAt("sheet-error", error.message);
    });
  }

  function name() {
    var typed = el("name").value.trim();
    if (!typed) {
      errorAt("join-error", P.tr("need_name"));
      el("name").focus();
    }
    return typed;
  }

  // Sends a sheet (a photo's form or the typed boxes). A hand-in whose answer was lost (no network, a busy
  // server) is sent again with the same key, so the server stores it once.
  function handIn(body, typedName) {
    pendingKey = pendingKey || P.randomKey();
    return P.api("POST", P.gamePath(code, "/sheets"), body, {"Idempotency-Key": pendingKey}).then(function (sheet) {
      pendingKey = null;
      keep(sheet);
      errorAt("join-error", "");
      P.say(el("join-status"), "");
      showSheet();
      el("sheet-title").focus();
    }, function (error) {
      if (error.status !== 0 && error.status !== 503) { pendingKey = null; }
      P.say(el("join-status"), "");
      errorAt("join-error", error.message);
      throw error;
    });
  }

  el("photo").addEventListener("change", function (event) {
    var input = event.currentTarget;
    var file = input.files && input.files[0];
    if (!file) { return; }
    var typedName = name();
    if (!typedName) { input.value = ""; return; }
    var form = new FormData();
    form.append("name", typedName);
    form.append("photo", file, file.name || "sheet.jpg");
    errorAt("join-error", "");
    P.say(el("join-status"), P.tr("reading"));
    handIn(form, typedName).then(null, function () { input.value = ""; });
  });

  el("type-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var typedName = name();
    if (!typedName) { return; }
    var cells = [];
    var inputs = document.querySelectorAll("#type-form .cell");
    for (var k = 0; k < inputs.length; k++) {
      var raw = inputs[k].value.trim();
      var value = tile(raw);
      if (value === null) {
        errorAt("join-error", P.tr(raw ? "bad_box" : "need_box", {box: k + 1, value: raw}));
        inputs[k].focus();
        return;
      }
      cells.push(value);
    }
    errorAt("join-error", "");
    P.say(el("join-status"), P.tr("sending"));
    handIn({name: typedName, cells: cells}, typedName);
  });

  // After the reveal: this sheet's score and series, its place, and the ranking.
  function showResults(document_) {
    done = true;
    var results = document_.results || [];
    var own = null;
    if (mine) {
      own = results.filter(function (r) { return r.file === "sheet-" + mine.id + ".json"; })[0] || null;
    }
    var rows = document_.ranking || [];
    P.ranking(el("ranking"), rows, function (row) { return own !== null && row.player === own.player && row.total === own.total; });
    if (!rows.length) { el("ranking").textContent = P.tr("no_ranking"); }
    el("result").hidden = false;
    if (own) {
      var total = el("total");
      total.textContent = "";
      total.appendChild(P.pointsNode(own.total));
      var placed = rows.filter(function (row) { return row.player === own.player && row.total === own.total; })[0];
      var notes = [];
      if (placed) { notes.push(P.tr("place", {place: placed.place, n: rows.length})); } else { notes.push(P.tr("not_ranked")); }
      if (own.wild_value !== null && own.wild_value !== undefined) { notes.push(P.tr("wild_is", {value: own.wild_value})); }
      (own.problems || []).forEach(function (p) { notes.push(p.message); });
      el("result-notes").textContent = notes.join(" · ");
      var strip = el("train");
      strip.textContent = "";
      if (own.series) { strip.appendChild(P.train(cellsOf(mine.boxes), own)); }
    } else {
      el("result-title").hidden = true;
    }
    if (own) {
      el("sheet").hidden = true;  // the train above shows the sheet, with its series
    } else if (mine) {
      mine.boxes.forEach(function (b) { b.flagged = false; });
      showSheet();
      P.say(el("sheet-status"), "");
    } else {
      el("join").hidden = true;
      el("hello").textContent = P.tr("closed");
    }
  }

  P.watch(code, function (game) {
    var before = called.length;
    called = game.called;
    if (mine && !done && called.length !== before) { showSheet(); }
    if (!game.revealed) { return false; }
    return P.api("GET", P.gamePath(code, "/results")).then(function (results) {
      showResults(results);
      return false;  // a host's correction after the reveal changes the results: keep following
    });
  }, function (error) {
    if (error && error.status === 404) {
      errorAt(mine ? "sheet-error" : "join-error", P.tr("lost"));
      return true;
    }
    return false;
  });

  if (mine && mine.id !== undefined && mine.boxes) {
    showSheet();
    // The server's copy wins over the one kept here (the host may have corrected it meanwhile).
    P.api("GET", P.gamePath(code, "/sheets/" + encodeURIComponent(mine.id)), undefined,
          {"X-Paperplay-Token": mine.token}).then(function (sheet) {
      if (done) { return; }
      keep(sheet);
      showSheet();
    }, function (error) {
      if (error.status === 403 || error.status === 404) { mine = null; P.save(storeKey, null); window.location.reload(); }
    });
  } else {
    mine = null;
    var name0 = P.load("paperplay:serve:name");
    if (name0) { el("name").value = name0; }
  }
  el("name").addEventListener("change", function () { P.save("paperplay:serve:name", el("name").value.trim()); });
}());
