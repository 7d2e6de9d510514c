// The history page's hover readout: the instant under the pointer and the version valid then.
// Only an enhancement: the timeline, its zoom and pan are server-rendered links and work without
// it. Loaded from /static (the CSP allows scripts from this origin only, no inline script).
(function () {
  'use strict';
  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function utc(ms) {
    var d = new Date(ms);
    return d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate()) + ' ' +
      pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()) + ':' + pad(d.getUTCSeconds()) + ' UTC';
  }
  function init() {
    var svg = document.getElementById('timeline');
    var out = document.getElementById('readout');
    if (!svg || !out) { return; }
    var from = Number(svg.getAttribute('data-from'));
    var to = Number(svg.getAttribute('data-to'));
    var left = Number(svg.getAttribute('data-left'));
    var plot = Number(svg.getAttribute('data-plot'));
    var width = Number(svg.getAttribute('width'));
    var segs = Array.prototype.slice.call(svg.querySelectorAll('#version-lane rect.seg'));
    var cursor = document.createElementNS('http://www.w3.org/2000/svg', 'line');
    cursor.setAttribute('class', 'cursor');
    cursor.setAttribute('y1', '0');
    cursor.setAttribute('y2', svg.getAttribute('height'));
    cursor.setAttribute('visibility', 'hidden');
    svg.appendChild(cursor);
    svg.addEventListener('mousemove', function (ev) {
      var box = svg.getBoundingClientRect();
      var x = (ev.clientX - box.left) * width / box.width;
      if (x < left || x > left + plot) {
        cursor.setAttribute('visibility', 'hidden');
        return;
      }
      var t = from + (x - left) / plot * (to - from);
      cursor.setAttribute('x1', x);
      cursor.setAttribute('x2', x);
      cursor.setAttribute('visibility', 'visible');
      var hit = null;
      for (var i = 0; i < segs.length; i++) {
        var s = segs[i];
        if (t >= Number(s.getAttribute('data-from')) && t < Number(s.getAttribute('data-to'))) { hit = s; break; }
      }
      var what = hit ? hit.querySelector('title').textContent : 'no version (before the first or outside the history)';
      out.textContent = utc(t) + ' · ' + what;
      out.setAttribute('data-version', hit ? hit.getAttribute('data-first') : '');
    });
    svg.addEventListener('mouseleave', function () { cursor.setAttribute('visibility', 'hidden'); });
  }
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
})();
