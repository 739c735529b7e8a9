(function () {
  "use strict";
  var el = P.el;
  var storeKey = "paperplay:serve:host";
  var game = P.load(storeKey);  // the game this host runs: its code, join address and players
  var seen = {turn: -1, sheets: "", revealed: false};
  var busy = false;

  function withKey(path) { return path + (path.indexOf("?") < 0 ? "?" : "&") + "key=" + encodeURIComponent(P.key); }

  function open(chosen) {
    game = {code: chosen.code, join_url: chosen.join_url, players: chosen.players};
    P.save(storeKey, game);
    P.say(el("new-error"), "");
    start();
    el("next").focus();
  }

  // The games this server holds, newest first: the host opens one again from another browser.
  function listGames() {
    P.api("GET", "/api/games").then(function (answer) {
      var list = el("games-list");
      list.textContent = "";
      answer.games.slice().reverse().forEach(function (state) {
        var item = document.createElement("li");
        var button = document.createElement("button");
        button.type = "button";
        button.textContent = P.tr("game_line", {code: state.code, players: P.plural(state.players, "player", "players_n"),
                                                turn: state.turn, turns: state.turns})
          + (state.revealed ? " · " + P.tr("is_revealed") : "");
        button.addEventListener("click", function () { open(state); });
        item.appendChild(button);
        list.appendChild(item);
      });
      el("games").hidden = answer.games.length === 0;
    }, function () { el("games").hidden = true; });
  }

  function show() {
    el("new").hidden = game !== null;
    el("game").hidden = game === null;
    if (game === null) { listGames(); return; }
    el("code").textContent = game.code;
    el("game-meta").textContent = game.players ? "· " + P.plural(game.players, "player", "players_n") : "";
    var join = el("join-link");
    join.href = game.join_url;
    join.textContent = game.join_url.replace(/^https?:\/\//, "");
    el("kit-link").href = withKey(P.gamePath(game.code, "/kit.pdf"));
    el("sheets-link").href = withKey(P.gamePath(game.code, "/sheets.pdf"));
    // The projector's address holds its view token, never the host key: the key is handed to the
    // projector's window through the browser once it opens (P.receiveKey on its side).
    if (game.projector_url) { el("projector-link").href = game.projector_url; }
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

  function update(state) {
    if (game === null || state.code !== game.code) { return true; }  // another game was started meanwhile
    game.players = state.players;
    if (state.projector_url) { el("projector-link").href = state.projector_url; }
    caller(state.called, state.turns, state.revealed);
    var meta = [P.plural(state.players, "player", "players_n")];
    if (state.variant) { meta.push(P.tr("variant", {name: state.variant})); }
    if (state.seed) { meta.push(P.tr("seed", {seed: state.seed})); }
    el("game-meta").textContent = "· " + meta.join(" · ");
    el("sheets-link").parentNode.hidden = state.variant !== null;  // scannable sheets are the published game's
    var sheets = state.handed_in;
    el("count").textContent = "· " + P.tr("in", {n: sheets.length, players: game.players});
    el("reveal").disabled = state.revealed === true;
    var work = [];
    var shape = JSON.stringify(sheets);
    if (shape !== seen.sheets) {
      seen.sheets = shape;
      // The boxes of each sheet (to list the flagged ones) come with the host's key.
      work.push(sheets.length ? P.api("GET", P.gamePath(game.code, "/sheets")).then(function (answer) {
        handed(answer.sheets);
      }) : handed([]));
    }
    if (state.revealed && !seen.revealed) {
      work.push(P.api("GET", P.gamePath(game.code, "/results")).then(function (results) {
        seen.revealed = true;
        P.ranking(el("ranking"), results.ranking);
        if (!results.ranking.length) { el("ranking").textContent = P.tr("no_ranking"); }
        el("results").hidden = false;
        el("reveal-hint").textContent = P.tr("revealed");
      }));
    }
    return Promise.all(work).then(function () { return false; });
  }

  // The sheets handed in: each name (as text), how it came (photo or typed) and its boxes still to check.
  function handed(sheets) {
    var list = el("handed");
    list.textContent = "";
    if (!sheets.length) {
      var none = document.createElement("li");
      none.className = "none";
      none.textContent = P.tr("none_in");
      list.appendChild(none);
      return;
    }
    sheets.forEach(function (sheet) {
      var item = document.createElement("li");
      var name = document.createElement("b");
      name.textContent = sheet.name;
      item.appendChild(name);
      var how = document.createElement("span");
      how.className = "muted";
      how.textContent = " · " + P.tr(sheet.kind === "typed" ? "typed" : "photo")
        + (sheet.printed ? " " + sheet.printed : "");
      item.appendChild(how);
      var flagged = sheet.boxes.filter(function (b) { return b.flagged; });
      var state = document.createElement("span");
      state.className = flagged.length ? "flags" : "sure";
      state.textContent = flagged.length ? P.plural(flagged.length, "flagged", "flagged_n") : P.tr("checked");
      item.appendChild(document.createTextNode(" "));
      item.appendChild(state);
      if (flagged.length) {
        var boxes = document.createElement("ul");
        boxes.className = "flagged";
        flagged.forEach(function (b) {
          var box = document.createElement("li");
          box.textContent = P.tr("box_is", {box: b.box, value: b.value}) + (b.why ? " (" + b.why + ")" : "");
          boxes.appendChild(box);
        });
        item.appendChild(boxes);
      }
      list.appendChild(item);
    });
  }

  function start() {
    show();
    seen = {turn: -1, sheets: "", revealed: false};
    el("results").hidden = true;
    el("reveal-hint").textContent = P.tr("reveal_hint");
    var following = game.code;
    P.watch(game.code, function (state) {
      return game === null || game.code !== following ? true : update(state);
    }, function (error) {
      if (error && error.status === 404 && game && game.code === following) {
        P.say(el("new-error"), P.tr("lost", {code: game.code}));
        game = null;
        P.save(storeKey, null);
        show();
        return true;
      }
      P.say(el("game-error"), error ? error.message : "");
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
      open({code: answer.code, join_url: answer.join_url, players: players});
    }, function (error) { P.say(el("new-error"), error.message); });
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
    }, function (error) {
      busy = false;
      el("next").disabled = false;
      P.say(el("note"), error.message);
    });
  });

  el("reveal").addEventListener("click", function () {
    if (game === null || !window.confirm(P.tr("confirm_reveal"))) { return; }
    var path = P.gamePath(game.code, "/reveal");
    P.api("POST", path).then(update, function (error) {
      // 409: the server names what is missing; the host reveals anyway only when they say so.
      if (error.status === 409 && window.confirm(error.message)) {
        P.api("POST", path, {force: true}).then(update, function (again) { P.say(el("game-error"), again.message); });
        return;
      }
      P.say(el("game-error"), error.message);
    });
  });

  el("another").addEventListener("click", function () {
    if (game !== null && !window.confirm(P.tr("confirm_new", {code: game.code}))) { return; }
    game = null;
    P.save(storeKey, null);
    show();
    el("players").focus();
  });

  if (game !== null && game.code) { start(); } else { game = null; show(); }

  el("projector-link").addEventListener("click", function (event) {
    var link = event.currentTarget;
    if (!link.href) { return; }
    event.preventDefault();
    var projector = window.open(link.href, "paperplay-projector");
    if (!projector) { return; }
    window.addEventListener("message", function handOver(answer) {
      if (answer.source !== projector || answer.origin !== window.location.origin) { return; }
      if (!answer.data || answer.data.paperplay !== "ready") { return; }
      projector.postMessage({paperplay: "key", key: P.key}, window.location.origin);
    });
  });
}());
