/**
 * The web app's only script, served at `/assets/app.js` (same origin, so the pages' CSP allows
 * `script-src 'self'` and nothing inline). Every page works without it through plain form posts;
 * it adds modal dialogs, confirmation before destructive actions, copy buttons, local times, the
 * live list of pending approvals (polled every 2 s), the role editor's live preview, and moves a
 * form's result message next to the block it returned to.
 *
 * Written as plain ES2020 for the browser; data from the server is only ever set as text, never
 * parsed as HTML.
 */
export const APP_SCRIPT = String.raw`(function () {
  'use strict';

  function announce(text) {
    var live = document.getElementById('live');
    if (!live) return;
    live.textContent = '';
    window.setTimeout(function () { live.textContent = text; }, 50);
  }

  function localTimes(root) {
    var times = (root || document).querySelectorAll('time[data-local]');
    for (var i = 0; i < times.length; i++) {
      var when = new Date(times[i].getAttribute('datetime'));
      if (!isNaN(when.getTime())) times[i].textContent = when.toLocaleString();
    }
  }

  function openDialog(opener) {
    var dialog = document.getElementById(opener.getAttribute('data-dialog'));
    if (!dialog || typeof dialog.showModal !== 'function') return false;
    var form = dialog.querySelector('form');
    if (form) {
      form.reset();
      var fields = form.querySelectorAll('[data-field]');
      for (var i = 0; i < fields.length; i++) {
        var key = 'field' + fields[i].name.charAt(0).toUpperCase() + fields[i].name.slice(1);
        fields[i].value = opener.dataset[key] || '';
      }
    }
    var slots = dialog.querySelectorAll('[data-slot]');
    for (var j = 0; j < slots.length; j++) {
      var slot = slots[j].getAttribute('data-slot');
      var value = opener.dataset['slot' + slot.charAt(0).toUpperCase() + slot.slice(1)] || '';
      slots[j].textContent = value;
      slots[j].hidden = value === '';
    }
    dialog.showModal();
    var first = dialog.querySelector('input:not([type=hidden]),select,textarea');
    if (first) first.focus();
    return true;
  }

  function copyText(button) {
    var target = document.getElementById(button.getAttribute('data-copy'));
    if (!target) return;
    var text = 'value' in target && typeof target.value === 'string' ? target.value : target.textContent;
    var done = function () {
      var label = button.textContent;
      button.textContent = 'Copied';
      announce('Copied to the clipboard');
      window.setTimeout(function () { button.textContent = label; }, 1500);
    };
    var fallback = function () {
      var area = document.createElement('textarea');
      area.value = text;
      area.setAttribute('readonly', '');
      area.className = 'visually-hidden';
      document.body.appendChild(area);
      area.select();
      try { document.execCommand('copy'); done(); } catch (e) { announce('Select the text and copy it'); }
      area.remove();
    };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, fallback);
    else fallback();
  }

  document.addEventListener('click', function (event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    var opener = target.closest('[data-dialog]');
    if (opener && openDialog(opener)) { event.preventDefault(); return; }
    var closer = target.closest('[data-close]');
    if (closer) {
      var dialog = closer.closest('dialog');
      if (dialog) { event.preventDefault(); dialog.close(); }
      return;
    }
    var copy = target.closest('[data-copy]');
    if (copy) { event.preventDefault(); copyText(copy); }
  });

  // Forms marked data-confirm ask in a modal dialog first; Cancel has the initial focus.
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-confirm')) return;
    if (form.getAttribute('data-confirmed') === '1') { form.removeAttribute('data-confirmed'); return; }
    var dialog = document.getElementById('confirm-dialog');
    if (!dialog || typeof dialog.showModal !== 'function') return;
    event.preventDefault();
    var submitter = event.submitter || null;
    dialog.querySelector('[data-confirm-text]').textContent = form.getAttribute('data-confirm');
    dialog.querySelector('[data-confirm-yes]').textContent = form.getAttribute('data-confirm-label') || 'Confirm';
    dialog.returnValue = '';
    dialog.addEventListener('close', function () {
      if (dialog.returnValue !== 'yes') return;
      form.setAttribute('data-confirmed', '1');
      if (submitter) form.requestSubmit(submitter); else form.requestSubmit();
    }, { once: true });
    dialog.showModal();
    dialog.querySelector('[data-confirm-cancel]').focus();
  });

  // Approvals: poll the JSON API every 2 s; approve and deny without a reload.
  var approvalList = document.getElementById('approval-list');
  if (approvalList) {
    var userId = approvalList.getAttribute('data-user-id');
    var shown = approvalList.getAttribute('data-ids') || '';
    var status = document.getElementById('approval-status');

    var el = function (tag, className, text) {
      var node = document.createElement(tag);
      if (className) node.className = className;
      if (text !== undefined) node.textContent = text;
      return node;
    };
    var timeEl = function (iso) {
      var node = el('time', '', iso);
      node.setAttribute('datetime', iso);
      node.setAttribute('data-local', '');
      return node;
    };
    var approvalItem = function (approval) {
      var item = el('li', 'card approval');
      item.setAttribute('data-approval-id', approval.id);
      var heading = el('h2');
      heading.appendChild(el('code', '', approval.toolPath));
      item.appendChild(heading);
      item.appendChild(el('p', 'approval-message', approval.message));
      var args = el('pre', 'approval-args');
      args.setAttribute('role', 'region');
      args.setAttribute('aria-label', 'Arguments');
      args.textContent = JSON.stringify(approval.args === undefined ? {} : approval.args, null, 2);
      item.appendChild(args);
      var meta = el('p', 'muted small');
      meta.appendChild(document.createTextNode('Asked '));
      meta.appendChild(timeEl(approval.createdAt));
      meta.appendChild(document.createTextNode(' · expires '));
      meta.appendChild(timeEl(approval.expiresAt));
      item.appendChild(meta);
      var form = el('form', 'actions');
      form.method = 'post';
      form.action = '/approvals/' + encodeURIComponent(approval.id);
      var approve = el('button', '', 'Approve');
      approve.type = 'submit'; approve.name = 'decision'; approve.value = 'approve';
      var deny = el('button', '', 'Deny');
      deny.type = 'submit'; deny.name = 'decision'; deny.value = 'deny';
      form.appendChild(approve);
      form.appendChild(deny);
      item.appendChild(form);
      return item;
    };
    var render = function (approvals) {
      var ids = approvals.map(function (a) { return a.id; }).join(',');
      var badge = document.querySelector('[data-approval-count]');
      if (badge) { badge.textContent = String(approvals.length); badge.hidden = approvals.length === 0; }
      if (ids === shown) return;
      var before = shown === '' ? 0 : shown.split(',').length;
      shown = ids;
      var focusedId = null;
      var active = document.activeElement;
      if (active && approvalList.contains(active)) {
        var holder = active.closest('[data-approval-id]');
        focusedId = holder ? holder.getAttribute('data-approval-id') : null;
      }
      approvalList.replaceChildren();
      if (approvals.length === 0) {
        approvalList.appendChild(el('li', 'empty', 'No pending approvals. New requests appear here as tools ask.'));
      }
      for (var i = 0; i < approvals.length; i++) approvalList.appendChild(approvalItem(approvals[i]));
      localTimes(approvalList);
      if (focusedId) {
        var again = approvalList.querySelector('[data-approval-id="' + CSS.escape(focusedId) + '"] button');
        if (again) again.focus();
      }
      if (approvals.length > before) announce(approvals.length + ' pending approval' + (approvals.length === 1 ? '' : 's'));
    };
    var poll = function () {
      if (document.hidden) return Promise.resolve();
      return fetch('/api/approvals?userId=' + encodeURIComponent(userId), {
        headers: { accept: 'application/json' },
        credentials: 'same-origin'
      }).then(function (res) {
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.json();
      }).then(function (body) {
        render(body.approvals);
        if (status) status.textContent = 'Updated ' + new Date().toLocaleTimeString();
      }).catch(function () {
        if (status) status.textContent = 'Could not refresh; retrying';
      });
    };
    approvalList.addEventListener('submit', function (event) {
      var form = event.target;
      var button = event.submitter;
      if (!(form instanceof HTMLFormElement) || !button) return;
      event.preventDefault();
      var buttons = form.querySelectorAll('button');
      for (var i = 0; i < buttons.length; i++) buttons[i].disabled = true;
      var decision = button.value;
      fetch(form.action.replace(/\/approvals\//, '/api/approvals/'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        credentials: 'same-origin',
        body: JSON.stringify({ decision: decision })
      }).then(function (res) {
        return res.json().then(function (body) {
          if (!res.ok) throw new Error(body && body.error ? body.error.message : 'HTTP ' + res.status);
          announce(decision === 'approve' ? 'Approved; the tool call continues' : 'Denied; the tool does nothing');
        });
      }).catch(function (error) {
        announce(error.message);
        var note = document.getElementById('approval-error');
        if (note) { note.textContent = error.message; note.hidden = false; }
      }).then(poll);
    });
    window.setInterval(poll, 2000);
    document.addEventListener('visibilitychange', poll);
  }

  // Role editor and MCP endpoint tools: preview the tools the typed patterns match.
  var areas = document.querySelectorAll('textarea[data-preview]');
  Array.prototype.forEach.call(areas, function (area) {
    var out = document.getElementById(area.getAttribute('data-preview'));
    if (!out) return;
    // An MCP endpoint's tools: previewed over the user's role, patterns matching nothing said so.
    var userId = area.getAttribute('data-preview-user');
    var unmatched = userId !== null;
    var patternsOf = function () {
      return area.value.split('\n').map(function (line) { return line.trim(); })
        .filter(function (line) { return line !== ''; }).slice(0, 1000);
    };
    var timer = 0;
    var sequence = 0;
    var draw = function (data) {
      var summary = out.querySelector('[data-preview-summary]');
      var problems = out.querySelector('[data-preview-problems]');
      var tools = out.querySelector('[data-preview-tools]');
      summary.textContent = (userId && patternsOf().length === 0)
        ? 'Serves all ' + data.totalTools + (data.totalTools === 1 ? ' tool' : ' tools') + ' of your role'
        : (userId ? 'Serves ' : 'Matches ') + data.tools.length + ' of ' + data.totalTools + (data.totalTools === 1 ? ' tool' : ' tools') + (userId ? ' of your role' : '');
      problems.replaceChildren();
      data.patterns.forEach(function (entry, index) {
        var problem = entry.problem;
        if (problem === null && unmatched && entry.matches === 0) problem = 'matches nothing today';
        if (problem === null) return;
        var li = document.createElement('li');
        li.textContent = 'Line ' + (index + 1) + ' (' + entry.pattern + '): ' + problem;
        problems.appendChild(li);
      });
      problems.hidden = problems.children.length === 0;
      tools.replaceChildren();
      data.tools.forEach(function (tool) {
        var li = document.createElement('li');
        var code = document.createElement('code');
        code.textContent = tool.path;
        li.appendChild(code);
        li.appendChild(document.createTextNode(' ' + tool.name));
        tools.appendChild(li);
      });
    };
    var update = function () {
      var patterns = patternsOf();
      var mine = ++sequence;
      fetch(userId ? '/api/connections/mcp-endpoints/preview' : '/api/policy/preview', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        credentials: 'same-origin',
        body: JSON.stringify(userId ? { userId: userId, tools: patterns } : { patterns: patterns })
      }).then(function (res) { return res.ok ? res.json() : null; })
        .then(function (data) { if (data && mine === sequence) draw(data); })
        .catch(function () {});
    };
    area.addEventListener('input', function () {
      window.clearTimeout(timer);
      timer = window.setTimeout(update, 200);
    });
  });

  // Search and filter lists (the Tools tab, admin Sources) as one types: items carry
  // data-filter-text (lower case) and data-states; a group (a plugin's card) hides with its last
  // item. The GET form still works without the script.
  document.querySelectorAll('form[data-filter-form]').forEach(function (form) {
    var input = form.querySelector('[data-filter]');
    var stateSelect = form.querySelector('[data-filter-state]');
    var count = form.querySelector('[data-filter-count]');
    var apply = function () {
      var items = document.querySelectorAll('[data-filter-text]');
      var groups = document.querySelectorAll('[data-filter-group]');
      var needle = input ? input.value.trim().toLowerCase() : '';
      var state = stateSelect ? stateSelect.value : '';
      var shown = 0;
      for (var i = 0; i < items.length; i++) {
        var item = items[i];
        var group = item.closest('[data-filter-group]');
        var states = ((group || item).getAttribute('data-states') || '').split(' ');
        var match = item.getAttribute('data-filter-text').indexOf(needle) !== -1 &&
          (state === '' || states.indexOf(state) !== -1);
        item.hidden = !match;
        if (match) shown++;
      }
      for (var j = 0; j < groups.length; j++) {
        var own = groups[j].querySelectorAll('[data-filter-text]');
        var groupStates = (groups[j].getAttribute('data-states') || '').split(' ');
        var any = false;
        for (var k = 0; k < own.length; k++) if (!own[k].hidden) any = true;
        groups[j].hidden = own.length === 0
          ? needle !== '' || (state !== '' && groupStates.indexOf(state) === -1)
          : !any;
      }
      if (count) count.textContent = shown + (shown === 1 ? ' match' : ' matches');
    };
    var timer;
    if (input) {
      input.addEventListener('input', function () {
        window.clearTimeout(timer);
        timer = window.setTimeout(apply, 60);
      });
      input.addEventListener('keydown', function (event) {
        if (event.key === 'Escape' && input.value !== '') {
          input.value = '';
          apply();
        }
      });
    }
    if (stateSelect) stateSelect.addEventListener('change', apply);
  });

  // A save that returns to the block it changed (/tools#provider-weather) scrolls there, past
  // the message at the top of the page: show the message at the top of that block, so the
  // browser's scroll to it (before or after this runs) brings both into view (issue 18).
  function flashWithTarget() {
    var flash = document.querySelector('[data-flash]');
    var id = window.location.hash.slice(1);
    var target = flash && id ? document.getElementById(decodeURIComponent(id)) : null;
    if (!flash || !target || target.contains(flash)) return;
    target.insertBefore(flash, target.firstChild);
    target.scrollIntoView({ block: 'start' });
  }

  localTimes(document);
  flashWithTarget();
})();
`;
