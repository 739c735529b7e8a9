(function () {
  "use strict";
  var data = P.data;
  var el = P.el;
  var code = data.code;
  var storeKey = "paperplay:serve:" + code;
  // This phone in the game: the player's id and token and name (from the join), then its sheet's id and
  // boxes as last read. Kept in localStorage: another tab, a reload or a restarted server carry on.
  var me = P.load(storeKey);
  var game = null;  // the game's state as last seen
  var called = [];  // the tiles called so far
  var done = false;  // the results are out
  var opened = null;  // a sure box the player tapped to change
  var lastTurn = -1;
  var pending = null;  // a hand-in being sent: its Idempotency-Key stays the same across retries
  var sheetVersion = null;
  var title = el("hello").textContent;
  var seenInRoster = me !== null;  // kept from before this page: every state from now on holds the player

  if (!me || typeof me.token !== "string" || me.player === undefined) { me = null; }
  P.setToken(me ? me.token : "");

  function errorAt(id, message) { P.say(el(id), message); }

  function store() { P.save(storeKey, me); }

  // The boxes as the server read them: value, flag, candidates and crop, whichever the answer holds.
  function boxesOf(sheet) {
    return (sheet.boxes || []).map(function (b, k) {
      return {box: b.box || k + 1, value: b.value, flagged: b.flagged === true,
              candidates: b.candidates || [], crop: b.crop || null, why: b.why || ""};
    });
  }

  function cellsOf(boxes) { return boxes.map(function (b) { return b.value; }); }

  function keep(sheet) {
    me.total = typeof sheet.total === "number" ? sheet.total : null;  // what the ranking counts (a big game's place)
    me.updated = sheet.updated;
    me.sheet = sheet.id;
    me.name = sheet.name || me.name;
    me.boxes = boxesOf(sheet);
    store();
  }

  // --- joining --------------------------------------------------------------------------------------

  function showJoin(message) {
    el("join").hidden = false;
    el("live").hidden = true;
    el("handin").hidden = true;
    el("sheet").hidden = true;
    el("hello").textContent = title;
    errorAt("join-error", message || "");
    var kept = P.load("paperplay:serve:name");
    if (kept && !el("name").value) { el("name").value = kept; }
  }

  el("join-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var typed = el("name").value.trim();
    if (!typed) {
      errorAt("join-error", P.tr("need_name"));
      el("name").focus();
      return;
    }
    var button = el("join-form").querySelector("button");
    button.disabled = true;
    errorAt("join-error", "");
    P.say(el("join-status"), P.tr("joining"));
    var idempotency = P.randomKey();
    P.persist(function () {
      return P.api("POST", P.gamePath(code, "/players"), {name: typed}, {"Idempotency-Key": idempotency});
    }, function (error) {
      P.say(el("join-status"), error.code === "too_many" ? P.problem(error) : P.tr("retrying"));
    }).then(function (player) {
      button.disabled = false;
      P.say(el("join-status"), "");
      me = {player: player.id, token: player.token, name: player.name, sheet: null, boxes: null};
      seenInRoster = false;
      P.setToken(me.token);
      store();
      P.save("paperplay:serve:name", typed);
      showGame();
      el("hello").focus();
    }, function (error) {
      button.disabled = false;
      P.say(el("join-status"), "");
      errorAt("join-error", P.problem(error, {bad_input: "need_name"}));
      el("name").focus();
    });
  });

  // --- following the game ---------------------------------------------------------------------------

  function showGame() {
    el("join").hidden = true;
    el("hello").textContent = P.tr("hello", {name: me.name || ""});
    el("live").hidden = false;
    if (game) { follow(game); }
    if (me.sheet !== null && me.sheet !== undefined && me.boxes) { showSheet(); }
  }

  function follow(state) {
    var tiles = state.called;
    var turn = tiles.length;
    el("live-turn").textContent = P.tr("turn", {turn: turn, total: state.turns});
    if (turn !== lastTurn) {
      if (turn === 0) { el("tile").textContent = ""; } else { P.fillTile(el("tile"), tiles[turn - 1]); }
      el("tile").setAttribute("aria-label", turn ? (tiles[turn - 1] === "*" ? P.tr("wild_tile") : String(tiles[turn - 1])) : "-");
      P.tileList(el("order"), tiles);
      if (lastTurn >= 0 && turn > lastTurn && me) {
        var tile = tiles[turn - 1];
        P.announce(P.tr("tile_news", {turn: turn, total: state.turns, tile: tile === "*" ? P.tr("wild_tile") : tile}));
      }
      lastTurn = turn;
    }
    var hasSheet = me && me.sheet !== null && me.sheet !== undefined;
    var note = "";
    if (state.revealed) {
      note = "";
    } else if (hasSheet) {
      note = P.tr("waiting");
    } else if (state.open) {
      note = P.tr("open_now");
    } else if (turn >= state.turns && state.locked) {
      note = P.tr("locked_now");
    } else if (turn === 0) {
      note = P.tr("before");
    } else {
      note = P.tr("follow") + " " + P.tr("opens");
    }
    el("live-note").textContent = note;
    el("live").classList.toggle("compact", !!hasSheet || state.revealed === true);  // the sheet comes first now
    // the player's own scannable sheet (the published game's): until they hand in
    el("own").hidden = !(me && !hasSheet && !state.revealed && state.variant === null);
    if (me && !el("own").hidden) {
      el("own-link").href = P.gamePath(code, "/players/" + encodeURIComponent(me.player) + "/sheet.pdf?token="
                                       + encodeURIComponent(me.token));
    }
    var wasHidden = el("handin").hidden;
    el("handin").hidden = !(me && !hasSheet && state.open && !state.revealed);
    if (wasHidden && !el("handin").hidden && document.activeElement === document.body) { el("handin-title").focus(); }
  }

  // --- handing in -----------------------------------------------------------------------------------

  // Sends the sheet (a photo's form or the typed boxes) with the player's token. Without an answer (no
  // network, a busy server, a slow upload) the same hand-in goes again with the same Idempotency-Key by
  // itself, so the server stores it once.
  function handIn(makeBody) {
    if (pending) { return Promise.reject(null); }
    pending = P.randomKey();
    var idempotency = pending;
    el("overlay-box").hidden = true;
    return P.persist(function () {
      return P.api("POST", P.gamePath(code, "/sheets"), makeBody(), {"Idempotency-Key": idempotency});
    }, function (error) {
      P.say(el("handin-status"), error.code === "too_many" ? P.problem(error) : P.tr("retrying"));
    }).then(function (sheet) {
      pending = null;
      errorAt("handin-error", "");
      P.say(el("handin-status"), "");
      gotSheet(sheet);
      if (sheet.state !== "refused") { el("sheet-title").focus(); }
    }, function (error) {
      pending = null;
      P.say(el("handin-status"), "");
      showRefusal(error);
      if (error && error.code === "handed_in") { refreshSheet(); }
      throw error;
    });
  }

  // A photo refused by the reader (the hand-in's answer, or a photo worker's later: a sheet "refused"): its
  // advice (in the game's language) when the server gives one, else the page's words for the code; and the
  // photo with what the reader found drawn on it.
  function showRefusal(error) {
    var answer = (error && error.answer) || {};
    var known = error && (P.data.text["e_" + error.code] !== undefined || error.status !== 400);
    var advice = typeof answer.hint === "string" && answer.hint ? answer.hint : "";
    errorAt("handin-error", advice && error.status === 400 ? advice : (known ? P.problem(error) : P.tr("e_bad_photo")));
    var overlay = answer.overlay || answer.overlay_png || answer.overlay_url;
    if (typeof overlay === "string" && (overlay.indexOf("data:image/png;base64,") === 0 || overlay.indexOf("/api/") === 0)) {
      el("overlay").src = overlay;
      el("overlay-box").hidden = false;
    }
  }

  // A sheet as the server answers it: read (its boxes), being read by a photo worker (a PostgreSQL game
  // night: wait for it), or refused by the worker (hand it in again, as a refused hand-in).
  var awaiting = null;  // the sheet whose photo is being read and waited for
  function gotSheet(sheet) {
    if (sheet.state === "refused") {
      me.sheet = null;
      me.boxes = null;
      me.reading = false;
      store();
      el("sheet").hidden = true;
      el("handin").hidden = false;
      el("photo").value = "";
      var refusal = {message: sheet.error || "", status: 400, code: sheet.code || "bad_photo", answer: sheet};
      showRefusal(refusal);
      if (game) { follow(game); }
      el("handin-title").focus();
      return;
    }
    keep(sheet);
    me.reading = sheet.state === "reading";
    // a big game's phone shows its place in the ranking kept as sheets arrive
    var placed = game && game.paged && typeof sheet.place === "number";
    el("my-place").hidden = !placed;
    el("my-place").textContent = placed ? P.tr("place", {place: sheet.place, n: sheet.of}) : "";
    store();
    el("handin").hidden = true;
    showSheet();
    if (game) { follow(game); }
    if (me.reading && awaiting !== sheet.id) { awaitRead(sheet.id, sheet.version); }
  }

  // Asks for the sheet with ?wait= until its photo is read (the server holds the question meanwhile).
  function awaitRead(id, version) {
    awaiting = id;
    var path = P.gamePath(code, "/sheets/" + encodeURIComponent(id));
    function ask(seen) {
      if (!me || me.sheet !== id) { awaiting = null; return; }
      P.api("GET", path + "?wait=" + (seen || 0), undefined, undefined, 35000).then(function (sheet) {
        if (sheet.state === "reading") { ask(sheet.version); return; }
        awaiting = null;
        gotSheet(sheet);
        if (sheet.state === "read") { el("sheet-title").focus(); }
      }, function (error) {
        if (error.code === "no_sheet" || error.status === 404) { awaiting = null; refreshSheet(); return; }
        window.setTimeout(function () { ask(seen); }, 2000);
      });
    }
    ask(version);
  }

  el("photo").addEventListener("change", function (event) {
    var input = event.currentTarget;
    var file = input.files && input.files[0];
    if (!file || !me) { return; }
    errorAt("handin-error", "");
    P.say(el("handin-status"), P.tr("reading"));
    handIn(function () {
      var form = new FormData();
      form.append("photo", file, file.name || "sheet.jpg");
      return form;
    }).then(null, function () { input.value = ""; });
  });

  // A typed box: a whole number, or the wild as * (x and X too, as `paperplay score --cells` reads them).
  var tile = P.typedTile;

  el("type-form").addEventListener("submit", function (event) {
    event.preventDefault();
    if (!me) { return; }
    var cells = [];
    var inputs = document.querySelectorAll("#type-form .cell");
    for (var k = 0; k < inputs.length; k++) {
      var raw = inputs[k].value.trim();
      var value = tile(raw);
      if (value === null) {
        errorAt("handin-error", P.tr(raw ? "bad_box" : "need_box", {box: k + 1, value: raw}));
        inputs[k].focus();
        return;
      }
      cells.push(value);
    }
    errorAt("handin-error", "");
    P.say(el("handin-status"), P.tr("sending"));
    handIn(function () { return {cells: cells}; }).then(null, function () { /* said on the page */ });
  });

  // --- the sheet, its boxes to check ----------------------------------------------------------------

  // What a flagged box may hold: the readings of the photo, then the tiles called that no other box holds.
  function choicesFor(b) {
    var left = called.slice();
    me.boxes.forEach(function (other) {
      if (other.box === b.box) { return; }
      var at = left.indexOf(other.value);
      if (at >= 0) { left.splice(at, 1); }
    });
    var values = [b.value].concat(b.candidates, left.length <= 6 ? left : []);
    return values.filter(function (v, i) { return v !== null && v !== undefined && values.indexOf(v) === i; });
  }

  var trainShown = false;  // after the reveal the train shows the sheet, with its series

  function showSheet() {
    if (!me || !me.boxes) { return; }
    el("sheet").hidden = trainShown;
    el("hello").textContent = P.tr("hello", {name: me.name || ""});  // the host may have renamed the sheet
    var list = el("read");
    list.textContent = "";
    el("sheet").classList.toggle("reading", !!me.reading);
    if (me.reading) {  // a photo worker reads it: its boxes come in a moment
      P.say(el("sheet-status"), P.tr("queued"));
      el("flags").textContent = "";
      return;
    }
    var locked = done || (game && (game.locked || game.revealed));
    me.boxes.forEach(function (b) {
      var item = document.createElement("li");
      item.id = "box-" + b.box;
      if (b.flagged) { item.className = "flag"; }
      // Each box is a button: a tap asks again what it holds (a sure box can be wrong too).
      var button = document.createElement("button");
      button.type = "button";
      button.disabled = !!locked;
      P.boxLabel(button, P.tr("box", {box: b.box}), b.box, b.value, b.flagged ? P.tr("unsure") : "");
      button.addEventListener("click", function () {
        opened = b.box;
        showSheet();
        var card = el("check-" + b.box);
        if (card) { card.querySelector("button, input").focus(); }
      });
      item.appendChild(button);
      list.appendChild(item);
    });
    var checks = me.boxes.filter(function (b) { return b.flagged || b.box === opened; });
    var flagged = checks.filter(function (b) { return b.flagged; });
    P.say(el("sheet-status"), done ? "" : (flagged.length ? P.tr("check") : P.tr("all_sure")));
    var flags = el("flags");
    flags.textContent = "";
    if (!locked) { checks.forEach(function (b) { flags.appendChild(flagCard(b)); }); }
  }

  function tileButton(value, box) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "choice";
    P.fillTile(button, value);
    button.addEventListener("click", function () {
      var b = me.boxes[box - 1];
      if (!b.flagged && b.value === value) { opened = null; showSheet(); return; }  // kept as it was
      fix(box, value);
    });
    return button;
  }

  // One box to check: its crop from the photo and what it may hold, each a button (one tap settles it).
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

  function fix(box, value) {
    var cells = {};
    cells[String(box)] = value;
    errorAt("sheet-error", "");
    var buttons = document.querySelectorAll("#check-" + box + " button");
    Array.prototype.forEach.call(buttons, function (b) { b.disabled = true; });
    P.persist(function () {
      return P.api("PUT", P.gamePath(code, "/sheets/" + encodeURIComponent(me.sheet)), {cells: cells});
    }).then(function (sheet) {
      opened = null;
      keep(sheet);
      showSheet();
      P.say(el("sheet-status"), P.tr("saved", {box: box, value: value === "*" ? P.tr("wild") : value}) + " "
            + (me.boxes.some(function (b) { return b.flagged; }) ? P.tr("check") : P.tr("all_sure")));
      var nextCheck = document.querySelector("#flags .check button");
      if (nextCheck) { nextCheck.focus(); } else { el("sheet-status").focus(); }
    }, function (error) {
      Array.prototype.forEach.call(buttons, function (b) { b.disabled = false; });
      errorAt("sheet-error", P.problem(error));
    });
  }

  // The server's copy of the sheet wins over the one kept here (the host may have corrected it).
  function refreshSheet() {
    var path = me && me.sheet !== null && me.sheet !== undefined
      ? P.gamePath(code, "/sheets/" + encodeURIComponent(me.sheet)) : null;
    if (path === null) {
      // A hand-in whose answer was lost on the way: the roster knows the sheet.
      return Promise.resolve();
    }
    return P.api("GET", path).then(function (sheet) {
      gotSheet(sheet);
    }, function (error) {
      if (error.code === "no_sheet" || error.status === 404) {
        me.sheet = null;
        me.boxes = null;
        store();
        el("sheet").hidden = true;
        errorAt("handin-error", P.tr("removed_sheet"));
        if (game) { follow(game); }
      }
    });
  }

  // --- the results ----------------------------------------------------------------------------------

  // After the reveal: this sheet's score and series (all 20 boxes), its place, and the ranking.
  function showResults(document_) {
    done = true;
    var results = document_.results || [];
    var own = null;
    var mySheet = me && me.sheet !== null && me.sheet !== undefined ? me.sheet : null;
    if (mySheet !== null) {
      own = results.filter(function (r) { return r.file === "sheet-" + mySheet + ".json"; })[0] || null;
    }
    var rows = document_.ranking || [];
    var placed = own ? rows.filter(function (row) { return row.player === own.player && row.total === own.total; })[0] : null;
    if (placed && me && me.name && placed.player !== me.name) {  // a name the host hid: this phone still shows its own
      var mine = {};
      Object.keys(placed).forEach(function (field) { mine[field] = placed[field]; });
      mine.player = me.name;
      rows = rows.map(function (row) { return row === placed ? mine : row; });
      placed = mine;
    }
    P.ranking(el("ranking"), rows, function (row) { return placed !== null && placed !== undefined && row === placed; });
    if (!rows.length) { el("ranking").textContent = P.tr("no_ranking"); }
    el("result").hidden = false;
    el("handin").hidden = true;
    var notes = [];
    var total = el("total");
    total.textContent = "";
    el("place").textContent = "";
    var strip = el("train");
    strip.textContent = "";
    if (own && own.valid === true) {
      total.appendChild(P.pointsNode(own.total));
      if (placed) { el("place").textContent = P.tr("place", {place: placed.place, n: rows.length}); }
    } else if (own) {
      el("place").textContent = P.tr("not_ranked");
    } else if (mySheet !== null && (document_.incomplete || []).some(function (s) { return s.id === mySheet; })) {
      el("place").textContent = P.tr("incomplete_out");
    }
    el("result-title").hidden = !own;
    if (own) {
      if (own.wild_value !== null && own.wild_value !== undefined) { notes.push(P.tr("wild_is", {value: own.wild_value})); }
      (own.problems || []).forEach(function (p) { notes.push(p.message); });
      if (own.series && me.boxes) {
        // all 20 boxes, in two rows of ten: no box hidden behind a scroll
        strip.appendChild(P.train(cellsOf(me.boxes), own, 0, 10));
        strip.appendChild(P.train(cellsOf(me.boxes), own, 10, 20));
      }
    }
    el("result-notes").textContent = notes.join(" · ");
    trainShown = !!(own && own.series && me.boxes);
    if (trainShown) {
      el("sheet").hidden = true;  // the train shows the sheet, with its series
    } else if (me && me.boxes) {
      showSheet();
    }
    if (!me) {
      el("join").hidden = true;
      el("hello").textContent = P.tr("closed");
    }
  }

  // A big game: its phones do not all ask for their sheet at each change of the game. A phone asks when the state
  // names its sheet among those changed last, after the reveal, and at least once a minute; its place comes from
  // its own total and the state's places meanwhile.
  var fetched = {at: 0, revealed: false};
  function mineChanged(state) {
    var named = (state.recent || []).some(function (r) { return r[0] === me.sheet && r[1] !== me.updated; });
    return named || state.revealed !== fetched.revealed || Date.now() - fetched.at > 60000;
  }
  function showPlace(state) {
    var found = (state.places || []).filter(function (p) { return p[0] === me.total; })[0];
    el("my-place").hidden = !found;
    el("my-place").textContent = found ? P.tr("place", {place: found[1], n: state.counts.ranked}) : "";
  }

  var shownResults = "";
  function update(state) {
    game = state;
    called = state.called;
    if (me && state.roster && !state.paged && me.player !== null) {  // a big game's state has no roster
      var entry = state.roster.filter(function (p) { return p.id === me.player; })[0];
      if (entry) { seenInRoster = true; }
      // (a state sent before the join had landed does not hold this player yet: not a removal)
      if (!entry && seenInRoster) {
        // the host removed this player: join again
        me = null;
        P.setToken("");
        P.save(storeKey, null);
        showJoin(P.tr("removed_player"));
      } else if (entry && entry.sheet !== null && entry.sheet !== undefined && entry.sheet !== me.sheet) {
        me.sheet = entry.sheet;  // handed in from another tab, or the answer was lost
        store();
      }
    }
    if (me) { follow(state); }
    var work = [];
    if (me && me.sheet !== null && me.sheet !== undefined && state.version !== sheetVersion) {
      sheetVersion = state.version;
      if (!state.paged || mineChanged(state)) {
        fetched = {at: Date.now(), revealed: state.revealed};
        work.push(refreshSheet());
      } else {
        showPlace(state);
      }
    }
    if (state.revealed && state.paged) {  // a big game: the top of the ranking, and this sheet's place
      showResults({ranking: state.top.map(function (row) { return {place: row.place, player: row.name, total: row.total}; })});
    } else if (state.revealed) {
      work.push(P.api("GET", P.gamePath(code, "/results")).then(function (results) {
        var key = JSON.stringify(results);
        if (key !== shownResults) {
          var first = shownResults === "";
          shownResults = key;
          showResults(results);
          if (first && me) { el("result-title").focus(); }
        }
      }));
    } else if (!me) {
      el("join").hidden = false;
    }
    return Promise.all(work).then(function () { return false; });  // keep following: the host may correct
  }

  P.watch(code, update, function (error) {
    if (error && error.code === "no_game") {
      errorAt(me ? "sheet-error" : "join-error", P.tr("lost"));
      return true;
    }
    errorAt(me ? "sheet-error" : "join-error", error ? P.problem(error) : "");
    if (!error) { P.announce(P.tr("e_back")); }
    return false;
  });

  if (me) { showGame(); } else { showJoin(""); }
  el("name").addEventListener("change", function () { P.save("paperplay:serve:name", el("name").value.trim()); });
  // Another tab of this browser joined or handed in: carry on from there.
  window.addEventListener("storage", function (event) {
    if (event.key !== storeKey) { return; }
    var other = P.load(storeKey);
    if (other && (!me || other.player !== me.player || other.sheet !== me.sheet)) { window.location.reload(); }
  });
}());
