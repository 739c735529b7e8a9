// The game night's pages share these helpers (P); each page's own script follows in the same <script>.
var P = (function () {
  "use strict";
  var data = JSON.parse(document.getElementById("data").textContent);
  var SVG = document.querySelector("svg").namespaceURI;  // no URL in the page, not even a namespace
  var T = data.text || {};
  var underlined = data.underlined || [6, 9];  // as on the tiles: numbers that read as others upside down
  var BOX = 10;  // SVG units per box, as the results page draws its trains

  function el(id) { return document.getElementById(id); }

  var LANG = data.lang || document.documentElement.lang || "en";
  var numbers = window.Intl ? new Intl.NumberFormat(LANG) : null;
  var plurals = window.Intl && Intl.PluralRules ? new Intl.PluralRules(LANG) : null;

  function num(n) { return typeof n === "number" && numbers ? numbers.format(n) : String(n); }

  // A word of the page's language with its {fields} filled in (numbers as the language writes them); a
  // plural's form is chosen by fields.n, by the language's own rule.
  function tr(key, fields) {
    var words = T[key] === undefined ? key : T[key];
    if (Array.isArray(words)) {
      var n = (fields || {}).n;
      words = words[(plurals ? plurals.select(n) : (n === 1 ? "one" : "other")) === "one" ? 0 : 1];
    }
    Object.keys(fields || {}).forEach(function (name) { words = words.split("{" + name + "}").join(num(fields[name])); });
    return words;
  }

  function plural(n, key, fields) {
    var all = {n: n};
    Object.keys(fields || {}).forEach(function (name) { all[name] = fields[name]; });
    return tr(key, all);
  }

  // A moment (seconds since 1970) as the page's language writes a date and time.
  function when(seconds) {
    var moment = new Date(seconds * 1000);
    try {
      return new Intl.DateTimeFormat(LANG, {dateStyle: "medium", timeStyle: "short"}).format(moment);
    } catch (e) { return moment.toISOString().slice(0, 16).replace("T", " "); }
  }

  function time(seconds) {
    try {
      return new Intl.DateTimeFormat(LANG, {timeStyle: "short"}).format(new Date(seconds * 1000));
    } catch (e) { return ""; }
  }

  // The host's key: given to the page by the server, or in the page's own address (?key=…); the projector
  // is handed it by the host page that opened it (P.setKey).
  var key = data.key || new URLSearchParams(window.location.search).get("key") || "";
  var view = data.view || new URLSearchParams(window.location.search).get("view") || "";
  var token = "";  // a player's token, sent with every call once the phone has joined

  function ApiError(message, status, code) { this.message = message; this.status = status; this.code = code || ""; }
  ApiError.prototype = Object.create(Error.prototype);

  // What a page says for an error: plain words in its language from the API's machine code, with what to do.
  // `own` gives a page's own words for some codes.
  function problem(error, own) {
    if (!error) { return ""; }
    if (error.status === 0) { return tr("e_offline"); }
    var code = error.code || "";
    if (own && own[code]) { return tr(own[code], {line: error.message}); }
    if (T["e_" + code] !== undefined) { return tr("e_" + code, {line: error.message}); }
    if (code === "bad_number" || code === "bad_json" || code === "unknown_field") {
      return tr("e_bad_input", {line: error.message});
    }
    if (error.status === 503) { return tr("e_busy"); }
    if (error.status === 408) { return tr("e_too_slow"); }
    if (error.status === 413) { return tr("e_too_large"); }
    return tr("e_other", {line: code || error.message});
  }

  // Calls the server's API; resolves with its JSON, rejects with an ApiError carrying the server's one line
  // and its code (status 0: no answer at all). `timeout` (ms) gives up on an answer that never comes.
  function api(method, path, body, headers, timeout) {
    var options = {method: method, headers: {"Accept": "application/json"}, cache: "no-store"};
    if (key) { options.headers["X-Paperplay-Key"] = key; }
    if (token && !key) { options.headers["X-Paperplay-Token"] = token; }
    Object.keys(headers || {}).forEach(function (name) { options.headers[name] = headers[name]; });
    if (body instanceof FormData) {
      options.body = body;
    } else if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    var timer = null;
    if (timeout && window.AbortController) {
      var abort = new AbortController();
      options.signal = abort.signal;
      timer = window.setTimeout(function () { abort.abort(); }, timeout);
    }
    return window.fetch(path, options).then(function (response) {
      return response.text().then(function (source) {
        if (timer) { window.clearTimeout(timer); }
        var answer = null;
        try { answer = source ? JSON.parse(source) : {}; } catch (e) { answer = null; }
        if (!response.ok) {
          var said = answer && answer.error;
          var error = new ApiError(typeof said === "string" ? said : (response.status + " " + response.statusText),
                                   response.status, answer && typeof answer.code === "string" ? answer.code : "");
          error.retryAfter = parseInt(response.headers.get("Retry-After") || "", 10) || 0;
          error.answer = answer;
          throw error;
        }
        if (answer === null) { throw new ApiError("the server's answer is not JSON", response.status, "internal"); }
        return answer;
      });
    }, function () {
      if (timer) { window.clearTimeout(timer); }
      throw new ApiError(tr("e_offline"), 0, "");
    });
  }

  // May the same call simply be sent again? No answer at all, a busy server, a slow upload, or more joins or
  // hand-ins from this phone's network than the server takes at once (too_many: its turn comes).
  function retryable(error) {
    return error.status === 0 || error.status === 503 || error.status === 408 || error.code === "too_many";
  }

  // Sends a call until it is answered: after no answer (or a busy server) the same call (the same body and
  // headers, so the same Idempotency-Key) goes again, 2 s later or after Retry-After; `waiting` is told of
  // each such wait. Rejects on an answer that is a refusal.
  function persist(send, waiting) {
    return new Promise(function (resolve, reject) {
      function attempt() {
        send().then(resolve, function (error) {
          if (!retryable(error)) { reject(error); return; }
          if (waiting) { waiting(error); }
          window.setTimeout(attempt, Math.min(10, Math.max(2, error.retryAfter || 2)) * 1000);
        });
      }
      attempt();
    });
  }

  function gamePath(code, rest) {
    var path = "/api/games/" + encodeURIComponent(code) + (rest || "");
    return view && !key ? path + (path.indexOf("?") < 0 ? "?" : "&") + "view=" + encodeURIComponent(view) : path;
  }

  // Follows a game's state: asks for it, then again with ?wait= (the server answers when it changes, or
  // after 25 s), for as long as onState does not return true. onState may return a promise; onError is
  // told of each failure (and of the first success after one, with null). After a failure the page asks
  // every second, without waiting, so a server that is back is noticed at once (not 25 s later).
  function watch(code, onState, onError) {
    var version = null;
    var failed = false;
    var stopped = false;
    function ask() {
      if (stopped) { return; }
      var waiting = version !== null && !failed;
      var path = gamePath(code, waiting ? "?wait=" + version : "");
      var same = false;
      api("GET", path, undefined, undefined, waiting ? 35000 : 8000).then(function (state) {
        // unchanged: the wait ran out, or the server holds as many phones of this network as it may and
        // answered at once; asking again a little later keeps a crowd behind one address from flooding it
        same = waiting && state.version === version;
        return Promise.resolve(onState(state)).then(function (stop) {
          version = state.version;
          return stop;
        });
      }).then(function (stop) {
        if (failed && onError) { onError(null); }
        failed = false;
        if (stop === true) { stopped = true; } else { window.setTimeout(ask, same ? 1000 : 50); }
      }, function (error) {
        failed = true;
        if (onError && onError(error) === true) { stopped = true; return; }
        window.setTimeout(ask, error.status === 503 ? 2000 : 1000);
      });
    }
    ask();
    return {again: function () { if (stopped) { stopped = false; ask(); } }};
  }

  function announce(message) {
    var region = document.getElementById("announce");
    if (!region || !message) { return; }
    region.textContent = "";
    window.setTimeout(function () { region.textContent = message; }, 60);
  }

  // A random key for one hand-in: a retry after a lost answer is then stored once, not twice.
  function randomKey() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  function load(name) {
    try { return JSON.parse(window.localStorage.getItem(name) || "null"); } catch (e) { return null; }
  }

  function save(name, value) {
    try {
      if (value === null) { window.localStorage.removeItem(name); } else { window.localStorage.setItem(name, JSON.stringify(value)); }
    } catch (e) { /* no storage (private mode): the page still works, without memory */ }
  }

  function svg(name, attributes) {
    var node = document.createElementNS(SVG, name);
    Object.keys(attributes || {}).forEach(function (a) { node.setAttribute(a, String(attributes[a])); });
    return node;
  }

  function star() {
    var icon = svg("svg", {"class": "star", viewBox: "0 0 2 2", role: "img", "aria-label": tr("wild")});
    icon.appendChild(svg("use", {href: "#star", width: 2, height: 2}));
    return icon;
  }

  // Shows a tile in a node: its number (underlined 6 and 9) or the wild's star.
  function fillTile(node, tile) {
    node.textContent = "";
    node.classList.toggle("u", underlined.indexOf(tile) >= 0);
    if (tile === "*" || tile === 0) { node.appendChild(star()); } else if (tile !== null && tile !== undefined) {
      node.textContent = String(tile);
    }
    node.setAttribute("data-v", tile === null || tile === undefined ? "" : String(tile));
  }

  // A box's value as typed: a number of up to three digits, or the wild (*, x or the star); null otherwise.
  function typedTile(typed) {
    var value = typed.trim();
    if (value === "*" || value === "x" || value === "X" || value === "\u2605") { return "*"; }
    if (/^[0-9]{1,3}$/.test(value)) { return parseInt(value, 10); }
    return null;
  }

  function tileList(list, tiles) {
    list.textContent = "";
    tiles.forEach(function (tile) {
      var item = document.createElement("li");
      fillTile(item, tile);
      list.appendChild(item);
    });
  }

  function points(n) { return plural(n, "points"); }

  // "{n} points" with its number in bold (a node, so that no word of it is read as HTML).
  function pointsNode(n) {
    var parts = tr("points", {n: "\u0000"}).split("\u0000");
    var node = document.createElement("span");
    node.appendChild(document.createTextNode(parts[0]));
    var number = document.createElement("b");
    number.textContent = num(n);
    node.appendChild(number);
    node.appendChild(document.createTextNode(parts.slice(1).join(num(n))));
    return node;
  }

  // A sheet's train as the results page draws it: the boxes, the numbers, the wild with its value and
  // each series bracketed with its points; in words for a screen reader. `from`/`to` draw a part of it
  // (boxes from+1..to: a phone shows its 20 boxes as two rows of ten), a series cut by the part's end
  // bracketed to its edge, its points under the part that holds its start.
  function train(all, result, from, to) {
    from = from || 0;
    to = to === undefined ? all.length : to;
    var cells = all.slice(from, to);
    var width = BOX * cells.length;
    var wild = result.wild_value;
    var numbers = cells.map(function (c) {
      return c === "*" ? (wild === null || wild === undefined ? "*" : "*=" + wild) : String(c);
    }).join(" ");
    var parts = (result.series || []).filter(function (s) { return s.end > from && s.start <= to; });
    var series = parts.map(function (s) {
      return tr("series_label", {n: s.points, start: s.start, end: s.end, points: s.points});
    }).join("; ");
    var drawing = svg("svg", {"class": "train", viewBox: "-0.5 -0.5 " + (width + 1) + " 21", role: "img",
                              "aria-label": tr("boxes_label", {numbers: numbers, series: series || "-"})});
    // the frame and its walls, drawn for this many boxes (the page's #boxes symbol holds all 20)
    drawing.appendChild(svg("rect", {"class": "boxes", width: width, height: BOX}));
    var walls = "";
    for (var k = 1; k < cells.length; k++) { walls += "M" + BOX * k + " 0v" + BOX; }
    drawing.appendChild(svg("path", {"class": "walls", d: walls}));
    var line = svg("text", {"class": "n", y: 7.3});
    cells.forEach(function (c, k) {
      if (c === "*") {
        drawing.appendChild(svg("use", {href: "#star", "class": "w", x: BOX * k + 2.2, y: 0.6, width: 5.6, height: 5.6}));
        if (wild !== null && wild !== undefined) {
          var value = svg("text", {"class": "wv", x: BOX * k + 5, y: 9.2});
          value.textContent = "=" + wild;
          drawing.appendChild(value);
        }
        return;
      }
      var span = svg("tspan", {x: BOX * k + 5});
      if (underlined.indexOf(c) >= 0) { span.setAttribute("class", "u"); }
      if (String(c).length >= 3) { span.setAttribute("font-size", "4"); }
      span.textContent = c === null || c === undefined ? "" : String(c);
      line.appendChild(span);
    });
    drawing.appendChild(line);
    var group = svg("g", {"class": "s", transform: "translate(0 19.6)"});
    var path = "";
    parts.forEach(function (s) {
      var start = Math.max(s.start, from + 1);
      var end = Math.min(s.end, to);
      var left = BOX * (start - 1 - from) + (start === s.start ? 1 : 0);
      var right = BOX * (end - from) - (end === s.end ? 1 : 0);
      path += "M" + left + " -8.1" + (start === s.start ? "v2.5" : "m0 2.5") + "h" + (right - left)
        + (end === s.end ? "v-2.5" : "");
      if (s.start > from) {
        var label = svg("text", {x: (left + right) / 2});
        label.textContent = String(s.points);
        group.appendChild(label);
      }
    });
    if (path) { group.insertBefore(svg("path", {d: path}), group.firstChild); }
    drawing.appendChild(group);
    return drawing;
  }

  // The ranking as `paperplay score --json` gives it: place, name (as text), total.
  function ranking(list, rows, mine) {
    list.textContent = "";
    rows.forEach(function (row) {
      var item = document.createElement("li");
      var place = document.createElement("b");
      place.className = "place";
      place.textContent = num(row.place);
      var name = document.createElement("span");
      name.className = "name";
      name.textContent = row.player;
      var total = document.createElement("span");
      total.className = "pts";
      total.textContent = num(row.total);
      item.appendChild(place);
      item.appendChild(name);
      item.appendChild(total);
      if (mine && mine(row)) { item.className = "mine"; }
      list.appendChild(item);
    });
  }

  function say(node, message) { node.textContent = message || ""; }

  // A box as a button's content: its number small, its value large; a screen reader hears "Box 3: 12"
  // (its words in the page's language, hidden from sight) and `note` ("not sure") after it.
  function boxLabel(button, words, box, value, note) {
    var parts = words.split(String(box));
    var number = document.createElement("small");
    var before = document.createElement("span");
    before.className = "sr";
    before.textContent = parts[0];
    number.appendChild(before);
    number.appendChild(document.createTextNode(String(box)));
    button.appendChild(number);
    var gap = document.createElement("span");
    gap.className = "sr";
    gap.textContent = ": " + (value === null || value === undefined ? tr("empty") : "");
    button.appendChild(gap);
    var shown = document.createElement("span");
    fillTile(shown, value);
    button.appendChild(shown);
    if (note) {
      var after = document.createElement("span");
      after.className = "sr";
      after.textContent = " (" + note + ")";
      button.appendChild(after);
    }
  }

  function setKey(given) { key = given; }
  function setToken(given) { token = given || ""; }
  function hasKey() { return key !== ""; }

  return {boxLabel: boxLabel, data: data, el: el, tr: tr, plural: plural, num: num, when: when, time: time, key: key, hasKey: hasKey,
          setKey: setKey, setToken: setToken, api: api, problem: problem, persist: persist, retryable: retryable,
          gamePath: gamePath, watch: watch, announce: announce, randomKey: randomKey, lang: LANG,
          load: load, save: save, star: star, fillTile: fillTile, tileList: tileList, typedTile: typedTile, points: points, pointsNode: pointsNode,
          train: train, ranking: ranking, say: say};
}());
