(function () {
  "use strict";
  var el = P.el;
  var storeKey = "paperplay:serve:host";
  var game = P.load(storeKey);  // the game this host runs: its code, join address, projector address
  var seen = {turn: -1, sheets: "", roster: "", results: ""};
  var state = null;  // the game's state as last seen
  var sheets = {};  // the sheets with their boxes (host's view), by id
  var openSheet = null;  // the sheet whose boxes are shown to check
  var openBox = null;  // a box of it the host chose to change (beside those to check)
  var busy = false;
  var watcher = null;

  function withKey(path) { return path + (path.indexOf("?") < 0 ? "?" : "&") + "key=" + encodeURIComponent(P.key); }

  function button(label, onClick, className) {
    var node = document.createElement("button");
    node.type = "button";
    node.textContent = label;
    if (className) { node.className = className; }
    node.addEventListener("click", onClick);
    return node;
  }

  function open(chosen) {
    game = {code: chosen.code, join_url: chosen.join_url, players: chosen.players,
            projector_url: chosen.projector_url || null, seed_warning: chosen.seed_warning || null};
    P.save(storeKey, game);
    P.say(el("new-error"), "");
    start();
    el("next").focus();
  }

  // The games this server holds, newest first, with their date and players: the host opens one again.
  function listGames() {
    P.api("GET", "/api/games").then(function (answer) {
      var list = el("games-list");
      list.textContent = "";
      answer.games.slice().reverse().forEach(function (one) {
        var item = document.createElement("li");
        var names = one.players_names || (one.roster || []).map(function (p) { return p.name; });
        var line = P.tr("game_line", {code: one.code, date: one.created ? P.when(one.created) : "",
                                      players: P.plural(one.players, "players_n")})
          + (one.revealed ? " · " + P.tr("is_revealed") : "");
        var chosen = button(line, function () { open(one); });
        var who = document.createElement("small");
        who.textContent = names.length ? names.join(", ") : P.tr("no_names");
        chosen.appendChild(who);
        item.appendChild(chosen);
        list.appendChild(item);
      });
      el("games").hidden = answer.games.length === 0;
    }, function () { el("games").hidden = true; });
  }

  function projectorUrl() {
    var url = (state && state.projector_url) || game.projector_url || ("/projector/" + encodeURIComponent(game.code));
    return url.replace(/^https?:\/\/[^/]+/, "");
  }

  function show() {
    el("new").hidden = game !== null;
    el("game").hidden = game === null;
    if (game === null) { listGames(); return; }
    el("code").textContent = game.code;
    el("seed-weak").hidden = !game.seed_warning;  // the server's seed_warning: players could find the draw
    el("game-meta").textContent = game.players ? "· " + P.plural(game.players, "players_n") : "";
    var join = el("join-link");
    join.href = game.join_url;
    join.textContent = game.join_url.replace(/^https?:\/\//, "");
    el("kit-link").href = withKey(P.gamePath(game.code, "/kit.pdf"));
    el("sheets-link").href = withKey(P.gamePath(game.code, "/sheets.pdf"));
    el("projector-link").href = projectorUrl();
    el("results-link").href = P.gamePath(game.code, "/results.html");
    el("results-link").textContent = P.tr("results_link");
  }

  // The caller's part: the turn, the last tile called and every tile called so far.
  function caller(tiles, total, revealed) {
    var turn = tiles.length;
    el("turn").textContent = P.tr("turn", {turn: turn, total: total});
    if (turn !== seen.turn) {
      if (turn === 0) { el("tile").textContent = ""; } else { P.fillTile(el("tile"), tiles[turn - 1]); }
      P.tileList(el("order"), tiles);
      seen.turn = turn;
    }
    el("next").disabled = busy || turn >= total || revealed;
    if (!busy) { P.say(el("note"), turn === 0 ? P.tr("first") : turn >= total ? P.tr("called_all") : ""); }
  }

  function update(next) {
    if (game === null || next.code !== game.code) { return true; }  // another game was started meanwhile
    state = next;
    game.players = next.players;
    caller(next.called, next.turns, next.revealed);
    var meta = [P.plural(next.players, "players_n")];
    if (next.variant) { meta.push(P.tr("variant", {name: next.variant})); }
    if (next.seed) { meta.push(P.tr("seed", {seed: next.seed})); }
    el("game-meta").textContent = "· " + meta.join(" · ");
    el("sheets-link").parentNode.hidden = next.variant !== null;  // scannable sheets are the published game's
    el("projector-link").href = projectorUrl();
    if (document.activeElement !== el("count-input")) { el("count-input").value = String(next.players); }
    roster(next);
    controls(next);
    var summaries = next.handed_in || [];
    var count = next.paged ? next.counts.handed_in : summaries.length;
    el("count").textContent = "· " + P.tr("in", {n: count, players: next.players});
    var work = [];
    var shape = JSON.stringify(summaries) + next.version;
    el("pager").hidden = !next.paged;
    if (next.paged) {  // a big game: its sheets a page at a time
      if (shape + sheetPage !== seen.sheets) {
        seen.sheets = shape + sheetPage;
        work.push(showPage(count));
      }
    } else if (shape !== seen.sheets) {
      seen.sheets = shape;
      // The boxes of each sheet (to check and fix them) come with the host's key.
      work.push(summaries.length ? P.api("GET", P.gamePath(game.code, "/sheets")).then(function (answer) {
        sheets = {};
        answer.sheets.forEach(function (s) { sheets[s.id] = s; });
        handed(answer.sheets);
      }) : Promise.resolve(handed([])));
    }
    if (next.revealed) {
      work.push(P.api("GET", P.gamePath(game.code, "/results")).then(function (results) {
        var key = JSON.stringify(results.ranking);
        if (key === seen.results) { return; }
        seen.results = key;
        P.ranking(el("ranking"), results.ranking);
        if (!results.ranking.length) { el("ranking").textContent = P.tr("no_ranking"); }
        el("results").hidden = false;
      }));
    }
    return Promise.all(work).then(function () { return false; });  // keep following after the reveal too
  }

  // A big game's sheets, PER_PAGE at a time, in the order they were handed in.
  var sheetPage = 1;
  var PER_PAGE = 50;
  function showPage(count) {
    var pages = Math.max(1, Math.ceil(count / PER_PAGE));
    sheetPage = Math.min(sheetPage, pages);
    el("page-of").textContent = P.tr("page_of", {page: sheetPage, pages: pages});
    el("page-back").disabled = sheetPage <= 1;
    el("page-on").disabled = sheetPage >= pages;
    return P.api("GET", P.gamePath(game.code, "/sheets?page=" + sheetPage + "&per_page=" + PER_PAGE)).then(function (answer) {
      sheets = {};
      answer.sheets.forEach(function (s) { sheets[s.id] = s; });
      handed(answer.sheets);
    });
  }
  function turnPage(by) {
    sheetPage = Math.max(1, sheetPage + by);
    if (state) { seen.sheets = ""; update(state); }
  }
  el("page-back").addEventListener("click", function () { turnPage(-1); });
  el("page-on").addEventListener("click", function () { turnPage(1); });

  // Who has joined, who has handed in, who has boxes to check; a player who has not handed in can be removed.
  function roster(next) {
    var people = next.roster || [];
    var key = JSON.stringify(people);
    // a big game's state counts its players (GET …/players pages through them)
    el("joined").textContent = "· " + P.plural(next.paged ? next.counts.joined : people.length, "joined_n");
    if (key === seen.roster) { return; }
    var before = seen.roster ? JSON.parse(seen.roster) : null;
    seen.roster = key;
    var list = el("roster");
    list.textContent = "";
    if (!people.length && !next.paged) {
      var none = document.createElement("li");
      none.className = "none";
      none.textContent = P.tr("nobody");
      list.appendChild(none);
    }
    people.forEach(function (person) {
      var item = document.createElement("li");
      var name = document.createElement("b");
      name.textContent = person.name;
      item.appendChild(name);
      if (person.hidden) { item.appendChild(hiddenMark()); }
      var how = document.createElement("span");
      how.className = "muted";
      how.textContent = person.joined ? " · " + P.tr("joined_at", {time: P.time(person.joined)}) : "";
      item.appendChild(how);
      var what = document.createElement("span");
      what.className = person.to_check ? "flags" : (person.handed_in ? "sure" : "muted");
      what.textContent = " · " + (person.to_check ? P.plural(person.to_check, "flagged")
        : P.tr(person.handed_in ? "has_sheet" : "waiting_sheet"));
      item.appendChild(what);
      if (!person.handed_in && person.id !== null && person.id !== undefined && !next.revealed) {
        item.appendChild(document.createTextNode(" "));
        item.appendChild(button(P.tr("remove"), function () {
          if (!window.confirm(P.tr("confirm_remove_player", {name: person.name}))) { return; }
          P.api("DELETE", P.gamePath(game.code, "/players/" + encodeURIComponent(person.id))).then(function () {
            P.say(el("sheet-status"), P.tr("removed", {name: person.name}));
          }, function (error) { P.say(el("game-error"), P.problem(error)); });
        }, "small"));
      }
      item.appendChild(document.createTextNode(" "));
      item.appendChild(hideButton(person));
      list.appendChild(item);
    });
    if (before !== null) {
      var known = before.map(function (p) { return p.id; });
      people.forEach(function (p) { if (known.indexOf(p.id) < 0) { P.announce(P.tr("arrived", {name: p.name})); } });
    }
  }

  // "hidden from the projector": beside a name the host has hidden.
  function hiddenMark() {
    var mark = document.createElement("span");
    mark.className = "hidden-mark";
    mark.textContent = " · " + P.tr("hidden_mark");
    return mark;
  }

  // Hides a name from the projector and the other phones, or shows it again: a player's (who joined), or a
  // sheet's handed in by name alone; the player's sheet and the sheet's player follow.
  function hideButton(person) {
    var control = button(P.tr(person.hidden ? "show_name" : "hide_name"), function () {
      var path = person.id !== null && person.id !== undefined ? "/players/" + encodeURIComponent(person.id)
        : "/sheets/" + encodeURIComponent(person.sheet);
      P.api("PATCH", P.gamePath(game.code, path), {hidden: !person.hidden}).then(function () {
        P.say(el("sheet-status"), P.tr(person.hidden ? "name_shown" : "name_hidden", {name: person.name}));
      }, function (error) { P.say(el("game-error"), P.problem(error)); });
    }, "small");
    control.setAttribute("aria-pressed", person.hidden ? "true" : "false");
    return control;
  }

  // The reveal, the lock and the number of players: what is missing is said before anything is done.
  function controls(next) {
    var missing = next.missing || {sheets: 0, incomplete: [], unsettled: []};
    var names = function (ids) {
      return ids.map(function (id) {
        var found = (next.handed_in || []).filter(function (s) { return s.id === id; })[0];
        return found ? found.name : "#" + id;
      }).join(", ");
    };
    var list = el("missing");
    list.textContent = "";
    var lines = [];
    if (!next.revealed) {
      if (missing.sheets) { lines.push(P.plural(missing.sheets, "missing_sheets")); }
      if ((missing.incomplete || []).length) { lines.push(P.tr("missing_incomplete", {names: names(missing.incomplete)})); }
      if ((missing.unsettled || []).length) { lines.push(P.tr("missing_unsettled", {names: names(missing.unsettled)})); }
      if (!lines.length && next.turn >= next.turns) { lines.push(P.tr("ready")); }
    }
    lines.forEach(function (line) {
      var item = document.createElement("li");
      item.textContent = line;
      list.appendChild(item);
    });
    el("reveal").hidden = next.revealed === true;
    if (next.revealed) { el("force").hidden = true; }
    el("reveal-hint").textContent = P.tr(next.revealed ? "revealed" : "reveal_hint");
    el("results-link").hidden = !next.revealed;
    var lock = el("lock");
    lock.textContent = P.tr(next.locked ? "unlock" : "lock");
    lock.setAttribute("aria-pressed", next.locked ? "true" : "false");
    lock.hidden = next.revealed === true;
    el("count-form").hidden = next.revealed === true;
    el("lock-note").textContent = next.locked && !next.revealed ? P.tr("locked_note") : "";
  }

  // The sheets handed in: each name (as text), how it came, its boxes to check; fix, rename, remove.
  function handed(list_) {
    var list = el("handed");
    list.textContent = "";
    if (!list_.length) {
      var none = document.createElement("li");
      none.className = "none";
      none.textContent = P.tr("none_in");
      list.appendChild(none);
      return;
    }
    list_.forEach(function (sheet) {
      var item = document.createElement("li");
      item.id = "sheet-" + sheet.id;
      var head = document.createElement("p");
      head.className = "head";
      var name = document.createElement("b");
      name.className = "name";
      name.textContent = sheet.name;
      head.appendChild(name);
      if (sheet.hidden) { head.appendChild(hiddenMark()); }
      var how = document.createElement("span");
      how.className = "muted";
      how.textContent = " · " + P.tr(sheet.kind === "typed" ? "typed" : "photo") + (sheet.printed ? " " + sheet.printed : "");
      head.appendChild(how);
      var attention = sheet.boxes.filter(function (b) { return b.flagged || b.value === null || b.corrected; });
      var flagged = sheet.boxes.filter(function (b) { return b.flagged; });
      var empty = sheet.boxes.filter(function (b) { return b.value === null; });
      var corrected = sheet.boxes.filter(function (b) { return b.corrected === "player"; });
      var said = [];
      if (flagged.length) { said.push(P.plural(flagged.length, "flagged")); }
      if (empty.length) { said.push(P.plural(empty.length, "empty_n")); }
      if (corrected.length) { said.push(P.plural(corrected.length, "corrected_n")); }
      var status = document.createElement("span");
      status.className = flagged.length || empty.length ? "flags" : (corrected.length ? "changed" : "sure");
      status.textContent = " · " + (said.length ? said.join(", ") : P.tr("checked"));
      head.appendChild(status);
      item.appendChild(head);
      var actions = document.createElement("p");
      actions.className = "actions";
      var fixing = button(P.tr("fix"), function () {
        openSheet = openSheet === sheet.id ? null : sheet.id;
        openBox = null;
        handed(list_);
        var first = document.querySelector("#sheet-" + sheet.id + " .fixes button");
        if (first) { first.focus(); }
      }, "small");
      fixing.setAttribute("aria-expanded", openSheet === sheet.id ? "true" : "false");
      actions.appendChild(fixing);
      actions.appendChild(button(P.tr("rename"), function () { renameForm(item, sheet); }, "small"));
      actions.appendChild(button(P.tr("remove"), function () {
        if (!window.confirm(P.tr("confirm_remove_sheet", {name: sheet.name}))) { return; }
        P.api("DELETE", P.gamePath(game.code, "/sheets/" + encodeURIComponent(sheet.id))).then(function () {
          P.say(el("sheet-status"), P.tr("removed", {name: sheet.name}));
        }, function (error) { P.say(el("game-error"), P.problem(error)); });
      }, "small"));
      item.appendChild(actions);
      if (openSheet === sheet.id) {
        item.appendChild(fixes(sheet, sheet.boxes.filter(function (b) { return attention.indexOf(b) >= 0 || b.box === openBox; })));
        item.appendChild(boxGrid(sheet, list_));
      }
      list.appendChild(item);
    });
  }

  // Every box of a sheet, each a button that opens it to be changed (a box read as sure can be wrong too).
  function boxGrid(sheet, list_) {
    var grid = document.createElement("ol");
    grid.className = "box-grid";
    sheet.boxes.forEach(function (b) {
      var item = document.createElement("li");
      var chosen = button("", function () {
        openBox = b.box;
        handed(list_);
        var field = el("fix-" + sheet.id + "-" + b.box);
        if (field) { field.focus(); }
      });
      P.boxLabel(chosen, P.tr("box", {box: b.box}), b.box, b.value, b.flagged ? P.tr("flagged", {n: 1}) : "");
      if (b.flagged || b.value === null) { chosen.className = "flag"; }
      item.appendChild(chosen);
      grid.appendChild(item);
    });
    return grid;
  }

  function renameForm(item, sheet) {
    if (item.querySelector("form.rename")) { return; }
    var form = document.createElement("form");
    form.className = "rename inline";
    var label = document.createElement("label");
    label.textContent = P.tr("new_name", {name: sheet.name});
    var input = document.createElement("input");
    input.id = "rename-" + sheet.id;
    input.maxLength = 40;
    input.value = sheet.name;
    label.htmlFor = input.id;
    form.appendChild(label);
    form.appendChild(input);
    var save = document.createElement("button");
    save.type = "submit";
    save.textContent = P.tr("save");
    form.appendChild(save);
    form.appendChild(button(P.tr("cancel"), function () { form.remove(); }));
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      P.api("PATCH", P.gamePath(game.code, "/sheets/" + encodeURIComponent(sheet.id)), {name: input.value.trim()}).then(
        function (answer) {
          P.say(el("sheet-status"), P.tr("renamed", {name: answer.name}));
          seen.sheets = "";
        }, function (error) {
          P.say(el("game-error"), P.problem(error));
          input.focus();
        });
    });
    item.appendChild(form);
    input.focus();
    input.select();
  }

  // A sheet's boxes to check: each with its image and candidates (one click sets it) and a field for any value.
  function fixes(sheet, boxes) {
    var box = document.createElement("div");
    box.className = "fixes";
    boxes.forEach(function (b) {
      var card = document.createElement("fieldset");
      card.className = "check";
      var legend = document.createElement("legend");
      legend.textContent = P.tr("box_is", {box: b.box, value: b.value === null ? "–" : (b.value === "*" ? P.tr("wild") : b.value)})
        + (b.why ? " · " + P.tr("why", {why: b.why}) : "");
      card.appendChild(legend);
      if (b.crop || b.crop_url) {
        var image = document.createElement("img");
        image.className = "crop";
        image.src = b.crop || withKey(b.crop_url);
        image.alt = P.tr("box_image", {box: b.box});
        card.appendChild(image);
      }
      var choices = document.createElement("div");
      choices.className = "choices";
      choices.setAttribute("role", "group");
      choices.setAttribute("aria-label", P.tr("set_box", {box: b.box}));
      var values = [b.value].concat(b.candidates || []).filter(function (v, i, all) {
        return v !== null && v !== undefined && all.indexOf(v) === i;
      });
      values.forEach(function (v) {
        var choice = button("", function () { setBox(sheet, b.box, v); }, "choice");
        P.fillTile(choice, v);
        choices.appendChild(choice);
      });
      card.appendChild(choices);
      var other = document.createElement("form");
      other.className = "inline";
      var label = document.createElement("label");
      label.className = "sr";
      label.textContent = P.tr("other_value", {box: b.box});
      var input = document.createElement("input");
      input.id = "fix-" + sheet.id + "-" + b.box;
      input.size = 4;
      input.maxLength = 3;
      input.inputMode = "tel";
      label.htmlFor = input.id;
      var ok = document.createElement("button");
      ok.type = "submit";
      ok.textContent = P.tr("save");
      other.appendChild(label);
      other.appendChild(input);
      other.appendChild(ok);
      other.addEventListener("submit", function (event) {
        event.preventDefault();
        var value = P.typedTile(input.value);
        if (value === null) { P.say(el("game-error"), P.tr("bad_value", {box: b.box})); input.focus(); return; }
        setBox(sheet, b.box, value);
      });
      card.appendChild(other);
      box.appendChild(card);
    });
    return box;
  }

  function setBox(sheet, number, value) {
    var cells = {};
    cells[String(number)] = value;
    P.api("PUT", P.gamePath(game.code, "/sheets/" + encodeURIComponent(sheet.id)), {cells: cells}).then(function () {
      P.say(el("sheet-status"), P.tr("fixed", {box: number, name: sheet.name, value: value === "*" ? P.tr("wild") : value}));
      P.say(el("game-error"), "");
      seen.sheets = "";
    }, function (error) { P.say(el("game-error"), P.problem(error)); });
  }

  function start() {
    show();
    seen = {turn: -1, sheets: "", roster: "", results: ""};
    el("results").hidden = true;
    el("force").hidden = true;
    var following = game.code;
    watcher = P.watch(game.code, function (next) {
      return game === null || game.code !== following ? true : update(next);
    }, function (error) {
      if (error && error.code === "no_game" && game && game.code === following) {
        P.say(el("new-error"), P.tr("lost", {code: game.code}));
        game = null;
        P.save(storeKey, null);
        show();
        return true;
      }
      P.say(el("game-error"), error ? P.problem(error) : "");
      if (!error) { P.announce(P.tr("e_back")); }
      return false;
    });
  }

  el("new-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var players = parseInt(el("players").value, 10);
    var request = {players: players, lang: el("lang").value, variant: el("variant").value};
    var seed = el("seed").value.trim();
    if (seed) { request.seed = seed; }
    P.say(el("new-error"), P.tr("creating"));
    P.api("POST", "/api/games", request).then(function (answer) {
      open({code: answer.code, join_url: answer.join_url, projector_url: answer.projector_url, players: players,
            seed_warning: answer.seed_warning});
    }, function (error) { P.say(el("new-error"), P.problem(error)); });
  });

  var lastCall = 0;
  el("next").addEventListener("click", function () {
    // A double click or a held Enter calls one tile, not the next ones too.
    if (busy || game === null || Date.now() - lastCall < 700) { return; }
    lastCall = Date.now();
    busy = true;
    el("next").disabled = true;
    P.say(el("note"), P.tr("calling"));
    P.api("POST", P.gamePath(game.code, "/call"), {turn: seen.turn + 1}).then(function (answer) {
      busy = false;
      caller(answer.called, answer.turns, false);
      el("next").focus();
    }, function (error) {
      busy = false;
      el("next").disabled = false;
      P.say(el("note"), P.problem(error));
    });
  });

  function reveal(force) {
    if (game === null) { return; }
    if (!force && !window.confirm(P.tr("confirm_reveal"))) { return; }
    P.api("POST", P.gamePath(game.code, "/reveal"), force ? {force: true} : undefined).then(function (next) {
      el("force").hidden = true;
      P.say(el("game-error"), "");
      update(next);
      el("results-link").focus();
    }, function (error) {
      if (error.code === "not_ready") {
        // what is missing is listed above the button; the host may still reveal, knowingly
        var force_ = el("force");
        force_.textContent = P.tr("reveal_anyway");
        force_.hidden = false;
        P.say(el("game-error"), P.tr("e_not_ready") + " " + P.tr("forced_note"));
        force_.focus();
      } else {
        P.say(el("game-error"), P.problem(error));
      }
    });
  }

  el("reveal").addEventListener("click", function () { reveal(false); });
  el("force").addEventListener("click", function () { reveal(true); });

  el("lock").addEventListener("click", function () {
    if (game === null || state === null) { return; }
    P.api("PATCH", P.gamePath(game.code), {locked: !state.locked}).then(function (next) {
      if (next && next.code) { update(next); }
    }, function (error) { P.say(el("game-error"), P.problem(error)); });
  });

  el("count-form").addEventListener("submit", function (event) {
    event.preventDefault();
    if (game === null) { return; }
    var players = parseInt(el("count-input").value, 10);
    P.api("PATCH", P.gamePath(game.code), {players: players}).then(function (next) {
      P.say(el("sheet-status"), P.tr("players_saved", {n: next.players}));
      if (next && next.code) { update(next); }
    }, function (error) { P.say(el("game-error"), P.problem(error)); });
  });

  // The projector window, opened from here, is handed the host's key through the browser (never through an
  // address): then Space or → there calls the next tile.
  var projector = null;
  el("projector-link").addEventListener("click", function (event) {
    event.preventDefault();
    projector = window.open(el("projector-link").href, "paperplay-projector-" + (game ? game.code : ""));
    P.say(el("note"), P.tr("projector_opened"));
  });
  window.addEventListener("message", function (event) {
    if (event.origin !== window.location.origin || game === null) { return; }
    var message = event.data || {};
    var fromMine = event.source !== null && (event.source === projector || event.source.opener === window);
    if (message.paperplay === "key?" && message.code === game.code && fromMine) {
      event.source.postMessage({paperplay: "key", key: P.key, code: game.code}, window.location.origin);
    }
  });

  el("another").addEventListener("click", function () {
    if (game !== null && !window.confirm(P.tr("confirm_new", {code: game.code}))) { return; }
    game = null;
    state = null;
    P.save(storeKey, null);
    show();
    el("players").focus();
  });

  if (game !== null && game.code) { start(); } else { game = null; show(); }
  void watcher;
}());
