// Live updates of a dashboard page: polls the page's JSON route (the
// body's data-live) and swaps each returned HTML fragment into the
// element of the same id. Without JavaScript the page is complete as
// served; this only keeps it fresh.
(function () {
  'use strict';
  var url = document.body.getAttribute('data-live');
  if (!url || !window.fetch) { return; }
  var every = parseInt(document.body.getAttribute('data-every'), 10) || 2000;
  var status = document.getElementById('live-status');
  var busy = false;

  function say(text, ok) {
    if (!status) { return; }
    status.textContent = text;
    status.className = ok ? 'live ok' : 'live off';
  }

  function apply(doc) {
    var f = doc.fragments || {};
    Object.keys(f).forEach(function (id) {
      var el = document.getElementById(id);
      if (el && el.innerHTML !== f[id]) { el.innerHTML = f[id]; }
    });
    say('live · ' + new Date().toLocaleTimeString(), true);
  }

  function tick() {
    if (busy || document.hidden) { return; }
    busy = true;
    fetch(url, { credentials: 'same-origin', cache: 'no-store', headers: { 'Accept': 'application/json' } })
      .then(function (r) {
        if (!r.ok) { throw new Error('HTTP ' + r.status); }
        return r.json();
      })
      .then(apply)
      .catch(function (e) { say('offline (' + e.message + ')', false); })
      .then(function () { busy = false; });
  }

  setInterval(tick, every);
  document.addEventListener('visibilitychange', tick);
  tick();
}());
