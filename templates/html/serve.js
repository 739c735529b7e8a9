// The game night's pages share these helpers (P); each page's own script follows in the same <script>.
var P = (function () {
  "use strict";
  var data = JSON.parse(document.getElementById("data").textContent);
  var SVG = document.querySelector("svg").namespaceURI;  // no URL in the page, not even a namespace
  var T = data.text || {};
  var underlined = data.underlined || [6, 9];  // as on the tiles: numbers that read as others upside down
  var BOX = 10;  // SVG units per box, as the results page draws its trains

  function el(id) { return document.getElementById(id); }

  // A word of the page's language with its {fields} filled in.
  function tr(key, fields) {
    var words = T[key] || key;
    Object.keys(fields || {}).forEach(function (name) { words = words.split("{" + name + "}").join(String(fields[name])); });
    return words;
  }

  function plural(n, one, many, fields) {
    var all = {n: n};
    Object.keys(fields || {}).forEach(function (name) { all[name] = fields[name]; });
    return tr(n === 1 ? one : many, all);
  }

  // The host's key: given to the page by the server, or in the page's own address (?key=…).
  var key = data.key || new URLSearchParams(window.location.search).get("key") || "";

  function ApiError(message, status) { this.message = message; this.status = status; }
  ApiError.prototype = Object.create(Error.prototype);

  // Calls the server's API; resolves with its JSON, rejects with an ApiError carrying the server's one line
  // (status 0: no answer at all).
  function api(method, path, body, headers) {
    var options = {method: method, headers: {"Accept": "application/json"}, cache: "no-store"};
    if (key) { options.headers["X-Paperplay-Key"] = key; }
    Object.keys(headers || {}).forEach(function (name) { options.headers[name] = headers[name]; });
    if (body instanceof FormData) {
      options.body = body;
    } else if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    return window.fetch(path, options).then(function (response) {
      return response.text().then(function (source) {
        var answer = null;
        try { answer = source ? JSON.parse(source) : {}; } catch (e) { answer = null; }
        if (!response.ok) {
          var said = answer && answer.error;
          throw new ApiError(typeof said === "string" ? said : (response.status + " " + response.statusText),
                             response.status);
        }
        if (answer === null) { throw new ApiError("the server's answer is not JSON", response.status); }
        return answer;
      });
    }, function () { throw new ApiError(tr("offline"), 0); });
  }

  function gamePath(code, rest) { return "/api/games/" + encodeURIComponent(code) + (rest || ""); }

  // Follows a game's state: asks for it, then again with ?wait= (the server answers when it changes, or
  // after 25 s), for as long as onState does not return true. onState may return a promise; onError is
  // told of each failure (and of each success after one, with null); the next try comes 2 s later.
  function watch(code, onState, onError) {
    var version = null;
    var failed = false;
    function ask() {
      var path = gamePath(code, version === null ? "" : "?wait=" + version);
      api("GET", path).then(function (state) {
        return Promise.resolve(onState(state)).then(function (stop) {
          version = state.version;
          return stop;
        });
      }).then(function (stop) {
        if (failed && onError) { onError(null); }
        failed = false;
        if (stop !== true) { window.setTimeout(ask, 50); }
      }, function (error) {
        failed = true;
        if (onError && onError(error) === true) { return; }
        window.setTimeout(ask, 2000);
      });
    }
    ask();
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

  function tileList(list, tiles) {
    list.textContent = "";
    tiles.forEach(function (tile) {
      var item = document.createElement("li");
      fillTile(item, tile);
      list.appendChild(item);
    });
  }

  function points(n) { return plural(n, "point", "points"); }

  // "{n} points" with its number in bold (a node, so that no word of it is read as HTML).
  function pointsNode(n) {
    var parts = (T[n === 1 ? "point" : "points"] || "{n}").split("{n}");
    var node = document.createElement("span");
    node.appendChild(document.createTextNode(parts[0]));
    var number = document.createElement("b");
    number.textContent = String(n);
    node.appendChild(number);
    node.appendChild(document.createTextNode(parts.slice(1).join(String(n))));
    return node;
  }

  // A sheet's train as the results page draws it: the boxes, the numbers, the wild with its value and
  // each series bracketed with its points; in words for a screen reader.
  function train(cells, result) {
    var width = BOX * cells.length;
    var wild = result.wild_value;
    var numbers = cells.map(function (c) {
      return c === "*" ? (wild === null || wild === undefined ? "*" : "*=" + wild) : String(c);
    }).join(" ");
    var series = (result.series || []).map(function (s) {
      return tr("series_label", {start: s.start, end: s.end, points: s.points});
    }).join("; ");
    var drawing = svg("svg", {"class": "train", viewBox: "-0.5 -0.5 " + (width + 1) + " 21", role: "img",
                              "aria-label": tr("boxes_label", {numbers: numbers, series: series || "-"})});
    drawing.appendChild(svg("use", {href: "#boxes", width: width, height: BOX}));
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
      span.textContent = String(c);
      line.appendChild(span);
    });
    drawing.appendChild(line);
    var group = svg("g", {"class": "s", transform: "translate(0 19.6)"});
    var path = "";
    (result.series || []).forEach(function (s) {
      var left = BOX * (s.start - 1) + 1;
      var right = BOX * s.end - 1;
      path += "M" + left + " -8.1v2.5h" + (right - left) + "v-2.5";
      var label = svg("text", {x: (left + right) / 2});
      label.textContent = String(s.points);
      group.appendChild(label);
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
      place.textContent = String(row.place);
      var name = document.createElement("span");
      name.className = "name";
      name.textContent = row.player;
      var total = document.createElement("span");
      total.className = "pts";
      total.textContent = String(row.total);
      item.appendChild(place);
      item.appendChild(name);
      item.appendChild(total);
      if (mine && mine(row)) { item.className = "mine"; }
      list.appendChild(item);
    });
  }

  function say(node, message) { node.textContent = message || ""; }

  var self = {data: data, el: el, tr: tr, plural: plural, key: key, api: api, gamePath: gamePath, watch: watch,
          randomKey: randomKey, load: load, save: save, star: star, fillTile: fillTile, tileList: tileList, points: points,
          pointsNode: pointsNode, train: train, ranking: ranking, say: say};

  // The host's key handed over by the window that opened this one (the host page opening the projector),
  // through the browser: never in an address. Only a window of this server may hand it over.
  self.receiveKey = function (done) {
    if (!window.opener) { return; }
    window.addEventListener("message", function (event) {
      if (event.origin !== window.location.origin || event.source !== window.opener) { return; }
      if (!event.data || event.data.paperplay !== "key" || typeof event.data.key !== "string") { return; }
      key = event.data.key;
      self.key = key;
      if (done) { done(); }
    });
    window.opener.postMessage({paperplay: "ready"}, window.location.origin);
  };
  return self;
}());
