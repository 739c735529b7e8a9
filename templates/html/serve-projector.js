(function () {
  "use strict";
  var data = P.data;
  var el = P.el;
  var code = data.code;
  var shown = {turn: -1, names: null, revealed: false, results: ""};
  var calling = false;
  var cells = {};  // each sheet's boxes, by its file name (with the host's key only)

  // --- the switches: spoken tiles and a chime, remembered in this browser ---------------------------

  var switches = {speak: P.load("paperplay:projector:speak") === true, chime: P.load("paperplay:projector:chime") === true};
  var synth = window.speechSynthesis || null;

  // The computer's own voices for the game's language (never a voice from the network).
  function voice() {
    if (!synth) { return null; }
    var wanted = P.lang.toLowerCase();
    var found = synth.getVoices().filter(function (v) {
      return v.localService && v.lang && v.lang.toLowerCase().replace("_", "-").split("-")[0] === wanted;
    });
    return found.filter(function (v) { return v["default"]; })[0] || found[0] || null;
  }

  function showSwitches() {
    ["speak", "chime"].forEach(function (name) {
      el("b-" + name).setAttribute("aria-pressed", switches[name] ? "true" : "false");
    });
    var notes = [];
    if (switches.speak) { notes.push(voice() ? P.tr("speak_on") : P.tr("no_voice")); }
    if (switches.chime) { notes.push(P.tr("chime_on")); }
    el("voice").textContent = notes.join(" ");
  }

  function toggle(name) {
    switches[name] = !switches[name];
    P.save("paperplay:projector:" + name, switches[name]);
    showSwitches();
  }

  function speak(words) {
    var chosen = voice();
    if (!switches.speak || !synth || !chosen) { return; }
    var utterance = new window.SpeechSynthesisUtterance(words);
    utterance.voice = chosen;
    utterance.lang = chosen.lang;
    synth.cancel();
    synth.speak(utterance);
  }

  var audio = null;
  // Two soft notes made with WebAudio (the page's CSP allows no media file).
  function chime() {
    if (!switches.chime) { return; }
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) { return; }
    try {
      audio = audio || new Context();
      var now = audio.currentTime;
      [659.25, 987.77].forEach(function (pitch, k) {
        var tone = audio.createOscillator();
        var gain = audio.createGain();
        tone.type = "sine";
        tone.frequency.value = pitch;
        gain.gain.setValueAtTime(0.0001, now + k * 0.16);
        gain.gain.exponentialRampToValueAtTime(0.25, now + k * 0.16 + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, now + k * 0.16 + 0.6);
        tone.connect(gain);
        gain.connect(audio.destination);
        tone.start(now + k * 0.16);
        tone.stop(now + k * 0.16 + 0.65);
      });
    } catch (e) { /* no sound here: the tile still shows */ }
  }

  function tileWords(tile) { return tile === "*" ? P.tr("wild_tile") : P.num(tile); }

  // --- the game, followed ---------------------------------------------------------------------------

  function update(game) {
    var tiles = game.called;
    var total = game.turns;
    var turn = tiles.length;
    if (!game.revealed) { el("turn").textContent = P.tr("turn", {turn: turn, total: total}); }
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
          var words = P.tr("tile_news", {turn: turn, total: total, tile: tileWords(tiles[turn - 1])});
          P.announce(words);
          chime();
          speak(tileWords(tiles[turn - 1]));
        }
      }
      el("lobby").hidden = turn > 0;  // before the first tile the names fill the stage
      el("tile").hidden = turn === 0;
      var notes = [];
      if (turn === 0) { notes.push(P.tr("first")); }
      if (turn > 0 && tiles[turn - 1] === "*") { notes.push(P.tr("wild_note")); }
      if (turn === total) { notes.push(P.tr("last")); }
      el("note").textContent = notes.join(" ");
      P.tileList(el("order"), tiles);
      shown.turn = turn;
    }
    roster(game);
    var sheets = game.handed_in || [];
    // a big game's state carries its counts, not every sheet (the count is the same for a small one)
    el("in").textContent = P.tr("in", {n: game.paged ? game.counts.handed_in : sheets.length, players: game.players});
    if (game.revealed) {
      return results(game).then(function () { return false; });  // a host's correction still shows
    }
    return false;
  }

  // Who is here: the players' names as they join (a sheet handed in without joining counts too).
  function roster(game) {
    var people = (game.roster || []).map(function (p) { return {name: p.name, handed: p.handed_in === true}; });
    var names = people.map(function (p) { return p.name; });
    (game.handed_in || []).forEach(function (s) {
      if (names.indexOf(s.name) < 0) { people.push({name: s.name, handed: true}); names.push(s.name); }
    });
    var key = JSON.stringify(people);
    if (key === shown.names) { return; }
    var before = shown.names === null ? null : JSON.parse(shown.names);
    shown.names = key;
    ["handed", "lobby"].forEach(function (id) {
      var list = el(id);
      list.textContent = "";
      people.forEach(function (person) {
        var item = document.createElement("li");
        item.textContent = person.name;
        if (person.handed) { item.className = "in"; }
        list.appendChild(item);
      });
    });
    el("joined-count").textContent = "· " + P.plural(game.paged ? game.counts.joined : people.length, "joined_n");
    if (before !== null) {
      var known = {};
      before.forEach(function (p) { known[p.name] = p.handed; });
      people.forEach(function (p) {
        if (!(p.name in known)) { P.announce(P.tr("arrived", {name: p.name})); } else if (p.handed && !known[p.name]) {
          P.announce(P.tr("handed_news", {name: p.name}));
        }
      });
    }
  }

  function results(game) {
    if (game.paged) {  // a big game: the top of the ranking kept as sheets arrive, from the state itself
      var top = {ranking: game.top.map(function (row) { return {place: row.place, player: row.name, total: row.total}; })};
      if (JSON.stringify(top) !== shown.results) {
        shown.results = JSON.stringify(top);
        reveal(top);
      }
      if (!shown.revealed) {
        shown.revealed = true;
        el("turn").textContent = P.tr("results");
        document.body.classList.add("revealed", "paged");  // the count handed in stays in the bar
        el("all-sheets").hidden = true;  // the top of the ranking only: not every sheet's train
        el("results").hidden = false;
        el("stage").hidden = true;
      }
      return Promise.resolve();
    }
    // The boxes of every sheet, once revealed, come with the projector's view token (or the host's key).
    var boxes = P.api("GET", P.gamePath(code, "/sheets")).then(null, function () { return {sheets: []}; });
    return Promise.all([P.api("GET", P.gamePath(code, "/results")), boxes]).then(function (answers) {
      answers[1].sheets.forEach(function (sheet) {
        cells["sheet-" + sheet.id + ".json"] = sheet.boxes.map(function (b) { return b.value; });
      });
      var key = JSON.stringify(answers[0]) + Object.keys(cells).length;
      if (key !== shown.results) {
        shown.results = key;
        reveal(answers[0]);
      }
      if (!shown.revealed) {
        shown.revealed = true;
        el("turn").textContent = P.tr("results");
        document.body.classList.add("revealed");
        if (!switches.speak && !switches.chime) { el("voice").textContent = ""; }
        el("results").hidden = false;
        el("stage").hidden = true;
        scroller();
      }
    });
  }

  // The results, live: the ranking, then each sheet: a ranked one with its points and train, an invalid
  // one as not ranked (never its points as a score), an incomplete one apart.
  function reveal(document_) {
    var rows = document_.ranking || [];
    P.ranking(el("ranking"), rows);
    el("ranking").classList.toggle("few", rows.length <= 5);
    if (!rows.length) { el("ranking").textContent = P.tr("no_ranking"); }
    var trains = el("trains");
    trains.textContent = "";
    var all = document_.results || [];
    var valid = all.filter(function (r) { return r.valid === true; }).sort(function (a, b) { return b.total - a.total; });
    var places = {};
    valid.forEach(function (r, i) { places[r.file] = (rows[i] || {}).place; });
    var unsettled = {};
    (document_.unsettled || []).forEach(function (u) { unsettled["sheet-" + u.id + ".json"] = true; });
    valid.concat(all.filter(function (r) { return r.valid !== true; })).forEach(function (result) {
      var ok = result.valid === true;
      var row = document.createElement("article");
      row.className = "sheet " + (ok ? "ok" : "bad");
      var who = document.createElement("div");
      who.className = "who";
      var name = document.createElement("h3");
      var place = document.createElement("span");
      place.className = "place";
      place.textContent = places[result.file] === undefined ? "\u2013" : P.num(places[result.file]);
      var named = document.createElement("span");
      named.className = "name";
      named.textContent = result.player || result.file;
      name.appendChild(place);
      name.appendChild(named);
      var line = document.createElement("p");
      if (ok) {
        line.appendChild(P.pointsNode(result.total));
        if (unsettled[result.file]) { line.appendChild(document.createTextNode(" · " + P.tr("unsettled"))); }
      } else {
        var verdict = document.createElement("span");
        verdict.className = "verdict";
        verdict.textContent = P.tr("not_valid") + " · " + P.tr("not_ranked");
        line.appendChild(verdict);
      }
      who.appendChild(name);
      who.appendChild(line);
      row.appendChild(who);
      if (ok && cells[result.file] && result.series) {
        var strip = document.createElement("div");
        strip.className = "strip";
        strip.appendChild(P.train(cells[result.file], result));
        row.appendChild(strip);
      }
      trains.appendChild(row);
    });
    (document_.incomplete || []).forEach(function (sheet) {
      var row = document.createElement("article");
      row.className = "sheet bad";
      var who = document.createElement("div");
      who.className = "who";
      var name = document.createElement("h3");
      var place = document.createElement("span");
      place.className = "place";
      place.textContent = "\u2013";
      var named = document.createElement("span");
      named.className = "name";
      named.textContent = sheet.name;
      name.appendChild(place);
      name.appendChild(named);
      var line = document.createElement("p");
      var verdict = document.createElement("span");
      verdict.className = "verdict";
      verdict.textContent = P.tr("incomplete_sheet") + " · " + P.tr("not_ranked");
      line.appendChild(verdict);
      who.appendChild(name);
      who.appendChild(line);
      row.appendChild(who);
      trains.appendChild(row);
    });
  }

  // Long results scroll by themselves, slowly, pausing at each end (and while the mouse or the keyboard is
  // on them); with reduced motion, a screen at a time.
  function scroller() {
    var box = el("results");
    var still = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    var pause = 0;
    var held = false;
    box.addEventListener("mouseenter", function () { held = true; });
    box.addEventListener("mouseleave", function () { held = false; });
    box.addEventListener("focus", function () { held = true; });
    box.addEventListener("blur", function () { held = false; });
    window.setInterval(function () {
      if (held || box.scrollHeight <= box.clientHeight + 2) { return; }
      if (pause > 0) { pause -= 1; return; }
      var end = box.scrollTop + box.clientHeight >= box.scrollHeight - 2;
      if (end) { box.scrollTop = 0; pause = still ? 1 : 60; return; }
      if (still) { box.scrollTop += box.clientHeight * 0.9; pause = 1; return; }
      box.scrollTop += 1;
      if (box.scrollTop + box.clientHeight >= box.scrollHeight - 2) { pause = 60; }
    }, still ? 6000 : 50);
  }

  P.watch(code, update, function (error) {
    el("note").textContent = error ? P.problem(error) : "";
    if (!error && shown.turn === 20) { el("note").textContent = P.tr("last"); }
  });

  // --- the host's key, handed over by the host page that opened this window ---------------------------

  if (window.opener) {
    window.addEventListener("message", function (event) {
      if (event.origin !== window.location.origin || event.source !== window.opener) { return; }
      var message = event.data || {};
      if (message.paperplay === "key" && typeof message.key === "string" && message.code === code) {
        P.setKey(message.key);
        el("voice").textContent = P.tr("key_given");
      }
    });
    try {
      window.opener.postMessage({paperplay: "key?", code: code}, window.location.origin);
    } catch (e) { /* the opener is another site's page: no key */ }
  }

  function next() {
    if (calling || !P.hasKey() || shown.revealed) { return; }
    calling = true;
    P.api("POST", P.gamePath(code, "/call"), {turn: shown.turn + 1}).then(function () {
      calling = false;
    }, function (error) {
      calling = false;
      el("note").textContent = P.problem(error);
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
      if (!P.hasKey() || shown.revealed) { return; }
      event.preventDefault();
      next();
    } else if (key === "f") {
      fullScreen();
    }
  });
  el("b-full").hidden = !enterFull || !exitFull;
  el("b-full").addEventListener("click", function () { fullScreen(); });
  el("b-speak").hidden = !synth;
  el("b-speak").addEventListener("click", function () { toggle("speak"); if (switches.speak) { speak(P.tr("speak_on")); } });
  el("b-chime").addEventListener("click", function () { toggle("chime"); chime(); });
  if (synth && "onvoiceschanged" in synth) { synth.addEventListener("voiceschanged", showSwitches); }
  showSwitches();
}());
