// Partita web console page: polls data.json, fills the tables, charts each cache's hit rate over
// time (per polling interval, from successive counters) and posts the cache settings form.
(function () {
  'use strict';
  var page = document.getElementById('partita-console');
  if (!page) { return; }
  // Absolute, from the origin: a page opened as http://user:pass@host/... would otherwise resolve
  // relative fetches to URLs with credentials, which fetch refuses
  var root = window.location.origin + page.getAttribute('data-root');
  var status = document.getElementById('partita-status');
  var canvas = document.getElementById('partita-hit-chart');
  var PERIOD_MS = 1000, KEEP = 120;
  var COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#17becf', '#7f7f7f'];
  var history = {};   // series name -> [{t, rate}] (rate null: no lookups in that interval)
  var last = {};      // series name -> {hits, misses} of the previous snapshot
  var samples = 0;

  function say(text, isError) {
    status.textContent = text;
    status.className = 'partita-status' + (isError ? ' error' : '');
  }

  function bytes(n) {
    if (n === null || n === undefined) { return 'unlimited'; }
    if (n >= 1048576) { return (n / 1048576).toFixed(1) + ' MB'; }
    return (n / 1024).toFixed(1) + ' KB';
  }

  function rate(hits, misses) {
    var all = hits + misses;
    return all === 0 ? '–' : (100 * hits / all).toFixed(1) + ' %';
  }

  function fill(tableId, rows) {
    var body = document.querySelector('#' + tableId + ' tbody');
    while (body.firstChild) { body.removeChild(body.firstChild); }
    rows.forEach(function (cells) {
      var tr = document.createElement('tr');
      cells.forEach(function (c) {
        var td = document.createElement('td');
        td.textContent = c === undefined || c === null ? '' : String(c);
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
  }

  function claimed(kinds) {
    if (!kinds) { return ''; }
    return Object.keys(kinds).map(function (k) { return k + ' ×' + kinds[k]; }).join(', ');
  }

  function record(name, hits, misses, t) {
    var prev = last[name];
    last[name] = { hits: hits, misses: misses };
    if (!prev) { return; }
    var dh = hits - prev.hits, dm = misses - prev.misses;
    var series = history[name] || (history[name] = []);
    series.push({ t: t, rate: dh + dm > 0 ? dh / (dh + dm) : null });
    if (series.length > KEEP) { series.shift(); }
  }

  function draw() {
    var ctx = canvas.getContext('2d');
    var w = canvas.width, h = canvas.height, left = 40, bottom = 20, top = 10, right = 10;
    ctx.clearRect(0, 0, w, h);
    ctx.strokeStyle = '#ccc';
    ctx.fillStyle = '#555';
    ctx.font = '11px sans-serif';
    [0, 0.5, 1].forEach(function (f) {
      var y = top + (1 - f) * (h - top - bottom);
      ctx.beginPath(); ctx.moveTo(left, y); ctx.lineTo(w - right, y); ctx.stroke();
      ctx.fillText((f * 100) + '%', 4, y + 4);
    });
    ctx.fillText('last ' + KEEP + ' s', w - right - 60, h - 5);
    var names = Object.keys(history).sort();
    var legend = document.getElementById('partita-chart-legend');
    while (legend.firstChild) { legend.removeChild(legend.firstChild); }
    var drawn = 0;
    names.forEach(function (name, i) {
      var colour = COLOURS[i % COLOURS.length];
      var series = history[name];
      ctx.strokeStyle = colour;
      ctx.lineWidth = 2;
      ctx.beginPath();
      var pen = false;
      series.forEach(function (p, j) {
        var x = left + (w - left - right) * (KEEP - series.length + j) / (KEEP - 1);
        if (p.rate === null) { pen = false; return; }
        var y = top + (1 - p.rate) * (h - top - bottom);
        if (pen) { ctx.lineTo(x, y); } else { ctx.moveTo(x, y); ctx.arc(x, y, 1, 0, 2 * Math.PI); ctx.moveTo(x, y); }
        pen = true;
        drawn++;
      });
      ctx.stroke();
      var item = document.createElement('span');
      var swatch = document.createElement('i');
      swatch.style.background = colour;
      item.appendChild(swatch);
      item.appendChild(document.createTextNode(name));
      legend.appendChild(item);
    });
    ctx.lineWidth = 1;
    canvas.setAttribute('data-points', String(drawn));
    canvas.setAttribute('data-series', String(names.length));
  }

  function show(s) {
    fill('partita-backends', s.backends.map(function (b) {
      return [b.id + ' ' + b.version, b.rank === -2147483648 ? 'lowest' : b.rank, b.state, b.engines.join(', '), claimed(b.claimedOpKinds),
        b.compiledPartitions, b.executions, b.running, b.description];
    }));
    var partitions = [];
    s.backends.forEach(function (b) {
      (b.cachedPartitions || []).forEach(function (line) { partitions.push([b.id, line]); });
    });
    fill('partita-partitions', partitions);
    fill('partita-constant-caches', s.constantCaches.map(function (c) {
      return [c.device, c.policy, bytes(c.capacityBytes), bytes(c.sizeBytes), c.entries, c.hits, c.misses,
        c.uncachedMisses, c.evictions, rate(c.hits, c.misses)];
    }));
    fill('partita-kernel-caches', s.kernelCaches.map(function (k) {
      return [k.name, k.capacity, k.entries, k.hits, k.misses, k.evictions, rate(k.hits, k.misses)];
    }));
    document.getElementById('partita-kind-capacities').textContent = 'Capacity set per engine kind: ' +
      s.capacityByKind.map(function (k) {
        return k.kind + ' ' + (k.capacityMb === null ? 'unlimited' : k.capacityMb + ' MB');
      }).join(', ') + (s.lastSettingError ? ' — last refused setting: ' + s.lastSettingError : '');
    s.constantCaches.forEach(function (c) { record('constant ' + c.device, c.hits, c.misses, s.time); });
    s.kernelCaches.forEach(function (k) { record(k.name, k.hits, k.misses, s.time); });
    samples++;
    draw();
  }

  function poll() {
    fetch(root + '/data.json', { credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) {
        if (!r.ok) { throw new Error('data.json answered ' + r.status); }
        return r.json();
      })
      .then(function (s) {
        show(s);
        if (status.className.indexOf('error') < 0 && status.getAttribute('data-kept') !== '1') {
          say('Updated ' + new Date(s.time).toLocaleTimeString() + ' (every ' + PERIOD_MS / 1000 + ' s)', false);
        }
      })
      .catch(function (e) { say('Cannot read the container state: ' + e.message, true); })
      .then(function () { setTimeout(poll, PERIOD_MS); });
  }

  document.getElementById('partita-settings').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var body = new URLSearchParams(new FormData(ev.target));
    fetch(root + '/settings', {
      method: 'POST', credentials: 'same-origin', body: body,
      headers: { 'X-Partita-Console': '1' }
    }).then(function (r) {
      return r.json().then(function (j) { return { ok: r.ok, body: j }; });
    }).then(function (res) {
      status.setAttribute('data-kept', '1');
      if (res.ok) {
        say(res.body.message, false);
        show(res.body.snapshot);
      } else {
        say('Refused: ' + res.body.error, true);
      }
      setTimeout(function () { status.removeAttribute('data-kept'); status.className = 'partita-status'; }, 10000);
    }).catch(function (e) { say('Cannot apply: ' + e.message, true); });
  });

  poll();
}());
