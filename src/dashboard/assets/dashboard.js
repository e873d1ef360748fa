// The dashboard's only script (served by the service; the CSP allows no other): it solves the proof-of-work
// challenge of the sign-up, login and contact forms with Web Crypto, copies a new client secret to the clipboard, and
// lets the policy form's allocation rows be added and removed with a running sum. Every form works without it but
// the proof of work; the server checks everything again.
'use strict';

(function () {
  var BATCH = 256;

  function leadingZeroBits(bytes) {
    var bits = 0;
    for (var i = 0; i < bytes.length; i++) {
      if (bytes[i] !== 0) return bits + Math.clz32(bytes[i]) - 24;
      bits += 8;
    }
    return bits;
  }

  // SHA-256 over "challenge:nonce" for nonce = 0, 1, 2, ... until one has `difficulty` leading zero bits. Digests
  // run in batches: one await per digest would spend most of the time between promises.
  async function solve(challenge, difficulty) {
    var encoder = new TextEncoder();
    for (var start = 0; ; start += BATCH) {
      var pending = [];
      for (var i = 0; i < BATCH; i++) pending.push(crypto.subtle.digest('SHA-256', encoder.encode(challenge + ':' + (start + i))));
      var digests = await Promise.all(pending);
      for (var j = 0; j < BATCH; j++) {
        if (leadingZeroBits(new Uint8Array(digests[j])) >= difficulty) return challenge + ':' + (start + j);
      }
    }
  }

  document.querySelectorAll('form[data-challenge]').forEach(function (form) {
    form.addEventListener('submit', async function (event) {
      event.preventDefault();
      var status = form.querySelector('.pow-status');
      var button = form.querySelector('button[type="submit"]');
      button.disabled = true;
      status.textContent = 'Checking that you are not a bot…';
      try {
        if (!window.crypto || !window.crypto.subtle) {
          throw new Error('This page needs a secure connection (https, or http on localhost) to solve its anti-bot puzzle.');
        }
        var response = await fetch('/challenge?purpose=' + encodeURIComponent(form.dataset.challenge), {
          headers: { accept: 'application/json' },
        });
        if (!response.ok) throw new Error('Could not get an anti-bot puzzle (HTTP ' + response.status + '); please try again.');
        var issued = await response.json();
        form.elements.challenge_solution.value = await solve(issued.challenge, issued.difficulty);
        status.textContent = 'Sending…';
        form.submit();
      } catch (error) {
        status.textContent = error.message;
        button.disabled = false;
      }
    });
  });

  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    button.addEventListener('click', async function () {
      var field = document.getElementById(button.dataset.copy);
      var status = document.querySelector('.copy-status');
      try {
        await navigator.clipboard.writeText(field.value);
        status.textContent = 'Copied to the clipboard.';
      } catch {
        field.select();
        status.textContent = 'The secret is selected: press Ctrl+C (or ⌘C) to copy it.';
      }
    });
  });

  // The policy form's allocation: add and remove rows, and keep the total of the weights in view.
  var allocation = document.querySelector('fieldset.allocation');
  if (allocation) {
    var body = allocation.querySelector('tbody');
    var template = document.getElementById('allocation-row');
    var output = document.getElementById('allocation-sum');
    var add = document.getElementById('add-row');
    // How far from 100 % the service accepts a total (its tolerance, in percent, as the page was rendered with it).
    var tolerance = Number(output.dataset.tolerance);
    var update = function () {
      var total = 0;
      var valid = true;
      allocation.querySelectorAll('input[name="target_percent"]').forEach(function (input) {
        var value = input.value.trim();
        if (value === '') return;
        if (!/^-?\d+(\.\d+)?$/.test(value)) valid = false;
        else total += Number(value);
      });
      // A hint only (binary floating point, rounded for display): the service checks the exact decimal sum.
      total = Math.round(total * 1e9) / 1e9;
      output.textContent = valid ? String(total) : '?';
      output.parentNode.lastChild.textContent = valid && Math.abs(total - 100) <= tolerance ? ' %' : ' % (must be 100 %)';
    };
    add.hidden = false;
    add.addEventListener('click', function () {
      body.appendChild(template.content.cloneNode(true));
      body.lastElementChild.querySelector('input').focus();
      update();
    });
    allocation.addEventListener('click', function (event) {
      var button = event.target.closest('button.remove-row');
      if (!button) return;
      button.closest('tr').remove();
      update();
      add.focus();
    });
    allocation.addEventListener('input', update);
    update();
  }
})();
