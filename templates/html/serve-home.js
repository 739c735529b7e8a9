(function () {
  "use strict";
  var el = P.el;

  // A game code as people type it: any case, with or without the dash or spaces; 8 letters and digits.
  function canonical(typed) {
    var plain = typed.normalize("NFKC").toUpperCase().replace(/[\s\-\u2010-\u2015]/g, "");
    return /^[0-9A-Z]{8}$/.test(plain) ? plain.slice(0, 4) + "-" + plain.slice(4) : null;
  }

  el("code-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var typed = el("code").value.trim();
    var code = canonical(typed);
    if (!typed) { P.say(el("code-error"), P.tr("need_code")); el("code").focus(); return; }
    if (code === null) { P.say(el("code-error"), P.tr("bad_code", {code: typed})); el("code").focus(); return; }
    P.say(el("code-error"), P.tr("looking"));
    // The game must be on this server: its state says so (a 404 no_game is said in plain words).
    P.api("GET", P.gamePath(code)).then(function () {
      window.location.assign("/join/" + encodeURIComponent(code));
    }, function (error) {
      P.say(el("code-error"), P.problem(error));
      el("code").focus();
    });
  });
}());
