// The history page's timeline, enhanced: the hover readout (the instant under the pointer and the
// version valid then), the same readout by keyboard, and drag-to-zoom. Only an enhancement: the
// timeline, its zoom and pan are server-rendered links and work without it. Loaded from /static
// (the CSP allows scripts from this origin only: no inline script, no style attribute; the script
// sets SVG attributes only).
//
// Keyboard (the timeline is focusable, tabindex=0): <- and -> move to the previous / next version
// segment in view, Home and End to the first and last; the readout (aria-live="polite") says the
// instant and the version, so a screen reader announces it. + and - follow the zoom links, Enter on a
// group of narrow versions opens the window around it.
// Mouse: a drag across the plot draws a brush; on release the page opens the window it covers
// (from= and to= in the URL, to the second, at least a minute), keeping the key and the compared
// versions: every window stays a link.
(function () {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';
  var MIN_SPAN_MS = 60 * 1000;
  var MIN_DRAG_PX = 4;
  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function utc(ms) {
    var d = new Date(ms);
    return d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate()) + ' ' +
      pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()) + ':' + pad(d.getUTCSeconds()) + ' UTC';
  }
  function iso(ms) { return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z'); }
  function init() {
    var svg = document.getElementById('timeline');
    var out = document.getElementById('readout');
    if (!svg || !out) { return; }
    var from = Number(svg.getAttribute('data-from'));
    var to = Number(svg.getAttribute('data-to'));
    var left = Number(svg.getAttribute('data-left'));
    var plot = Number(svg.getAttribute('data-plot'));
    var width = Number(svg.getAttribute('width'));
    var height = svg.getAttribute('height');
    var segs = Array.prototype.slice.call(svg.querySelectorAll('#version-lane rect.seg'));
    segs.sort(function (a, b) { return Number(a.getAttribute('x')) - Number(b.getAttribute('x')); });
    var cursor = document.createElementNS(SVG, 'line');
    cursor.setAttribute('class', 'cursor');
    cursor.setAttribute('y1', '0');
    cursor.setAttribute('y2', height);
    cursor.setAttribute('visibility', 'hidden');
    svg.appendChild(cursor);
    var brush = document.createElementNS(SVG, 'rect');
    brush.setAttribute('class', 'brush');
    brush.setAttribute('y', '0');
    brush.setAttribute('height', height);
    brush.setAttribute('visibility', 'hidden');
    svg.appendChild(brush);

    function plotX(ev) {
      var box = svg.getBoundingClientRect();
      return (ev.clientX - box.left) * width / box.width;
    }
    function timeAt(x) { return from + (x - left) / plot * (to - from); }
    function clampX(x) { return Math.max(left, Math.min(left + plot, x)); }
    function show(t, hit) {
      var x = left + (t - from) / (to - from) * plot;
      cursor.setAttribute('x1', x);
      cursor.setAttribute('x2', x);
      cursor.setAttribute('visibility', 'visible');
      var what = hit ? hit.querySelector('title').textContent : 'no version (before the first or outside the history)';
      out.textContent = utc(t) + ' · ' + what;
      out.setAttribute('data-version', hit ? hit.getAttribute('data-first') : '');
    }

    // the pointer: the readout follows it; a drag draws the brush
    var dragStart = null;
    var dragged = false;
    svg.addEventListener('mousemove', function (ev) {
      var x = plotX(ev);
      if (dragStart !== null) {
        var a = Math.min(dragStart, clampX(x));
        var b = Math.max(dragStart, clampX(x));
        brush.setAttribute('x', a);
        brush.setAttribute('width', b - a);
        brush.setAttribute('visibility', b - a >= MIN_DRAG_PX ? 'visible' : 'hidden');
      }
      if (x < left || x > left + plot) {
        cursor.setAttribute('visibility', 'hidden');
        return;
      }
      var t = timeAt(x);
      var hit = null;
      for (var i = 0; i < segs.length; i++) {
        var s = segs[i];
        if (t >= Number(s.getAttribute('data-from')) && t < Number(s.getAttribute('data-to'))) { hit = s; break; }
      }
      show(t, hit);
    });
    svg.addEventListener('mouseleave', function () { cursor.setAttribute('visibility', 'hidden'); });
    svg.addEventListener('mousedown', function (ev) {
      var x = plotX(ev);
      if (ev.button !== 0 || x < left || x > left + plot) { return; }
      dragStart = x;
      dragged = false;
      ev.preventDefault(); // no text selection while dragging
    });
    document.addEventListener('mouseup', function (ev) {
      if (dragStart === null) { return; }
      var a = Math.min(dragStart, clampX(plotX(ev)));
      var b = Math.max(dragStart, clampX(plotX(ev)));
      dragStart = null;
      brush.setAttribute('visibility', 'hidden');
      if (b - a < MIN_DRAG_PX) { return; } // a click, not a drag
      dragged = true;
      var t1 = timeAt(a);
      var t2 = Math.max(timeAt(b), t1 + MIN_SPAN_MS);
      var url = new URL(window.location.href);
      url.searchParams.set('from', iso(t1));
      url.searchParams.set('to', iso(t2));
      window.location.assign(url.pathname + url.search);
    });
    // a drag that ends on a group's link must not also follow it
    svg.addEventListener('click', function (ev) {
      if (dragged) { ev.preventDefault(); dragged = false; }
    }, true);

    // the keyboard: step through the segments in view
    var at = -1;
    function select(i) {
      if (segs.length === 0) { return; }
      at = Math.max(0, Math.min(segs.length - 1, i));
      for (var j = 0; j < segs.length; j++) {
        segs[j].classList.toggle('kbd', j === at);
      }
      var s = segs[at];
      show(Math.max(from, Number(s.getAttribute('data-from'))), s);
    }
    function follow(id) {
      var link = document.getElementById(id);
      if (link && link.getAttribute('href')) { window.location.assign(link.getAttribute('href')); }
    }
    svg.addEventListener('keydown', function (ev) {
      if (ev.target !== svg) { return; } // a focused group link handles its own keys
      switch (ev.key) {
        case 'ArrowRight': select(at + 1); break;
        case 'ArrowLeft': select(at < 0 ? 0 : at - 1); break;
        case 'Home': select(0); break;
        case 'End': select(segs.length - 1); break;
        case '+': case '=': follow('zoom-in'); break;
        case '-': follow('zoom-out'); break;
        case 'Enter':
          if (at >= 0 && segs[at].parentNode.tagName.toLowerCase() === 'a') {
            window.location.assign(segs[at].parentNode.getAttribute('href'));
          }
          break;
        default: return;
      }
      ev.preventDefault();
    });
    svg.addEventListener('blur', function () {
      if (at >= 0) { segs[at].classList.remove('kbd'); }
      cursor.setAttribute('visibility', 'hidden');
      at = -1;
    });
  }
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
})();
