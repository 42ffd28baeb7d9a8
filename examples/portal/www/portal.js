'use strict';
// The example operator's portal page: plain JavaScript, no framework.
// It frames the game on the game server's origin and talks to it only
// through window.postMessage, checking the origin both ways.

const $ = (id) => document.getElementById(id);
const MAX_FRAME_HEIGHT = 4000;

// The running game: its origin (taken from the launch URL) and its iframe.
let game = null;
let muted = false;

function money(cents) {
  return '€' + Math.floor(cents / 100) + '.' + String(cents % 100).padStart(2, '0');
}

// `source` says where the figure came from: 'portal' (this back end, in the
// lobby) or 'event' (the game's `balance` message, while it is open).
function showBalance(cents, source) {
  const out = $('balance');
  out.textContent = money(cents);
  out.dataset.cents = String(cents);
  out.dataset.source = source;
}

function say(text) {
  $('message').textContent = text || '';
  $('message').hidden = !text;
}

function show(view) {
  for (const id of ['login', 'lobby', 'game']) $(id).hidden = id !== view;
}

async function call(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error(data && data.error ? data.error.message : response.statusText);
    error.status = response.status;
    throw error;
  }
  return data;
}

function send(message) {
  if (game && game.frame.contentWindow) game.frame.contentWindow.postMessage(message, game.origin);
}

function closeGame() {
  if (!game) return;
  send({ type: 'close' });
  const frame = game.frame;
  game = null;
  frame.hidden = true;
  // Leaves the page a moment to end its session before its frame goes.
  setTimeout(() => frame.remove(), 1000);
}

async function enterLobby() {
  closeGame();
  $('cashier').close();
  try {
    const me = await call('GET', '/api/me');
    $('player').textContent = me.player_id;
    $('account').hidden = false;
    showBalance(me.balance_cents, 'portal');
    show('lobby');
  } catch (error) {
    $('account').hidden = true;
    show('login');
    if (error.status !== 401) say(error.message);
  }
}

function openGame(url) {
  const frame = document.createElement('iframe');
  frame.title = 'Eldorado';
  frame.allow = 'autoplay';
  frame.src = url;
  game = { origin: new URL(url).origin, frame };
  $('frame-slot').append(frame);
  $('last-round').textContent = '';
  show('game');
}

function openCashier(tooLow) {
  $('cashier-reason').hidden = !tooLow;
  if (!$('cashier').open) $('cashier').showModal();
}

// Only the game's iframe, on the game's origin, is heard.
window.addEventListener('message', (event) => {
  if (!game || event.source !== game.frame.contentWindow) return;
  if (event.origin !== game.origin) return;
  const message = event.data;
  if (!message || typeof message !== 'object') return;
  switch (message.type) {
    case 'ready':
      send({ type: muted ? 'mute' : 'unmute' });
      break;
    case 'balance':
      if (Number.isSafeInteger(message.balance_cents)) showBalance(message.balance_cents, 'event');
      break;
    case 'round_started':
      $('last-round').textContent = `Ticket ${message.sale_id}: stake ${money(message.stake_cents)}`;
      break;
    case 'round_ended':
      $('last-round').textContent = `Ticket ${message.sale_id}: prize ${money(message.prize_cents)}`
        + (message.verified ? '' : ' (NOT verified by the game page)');
      break;
    case 'insufficient_funds':
      openCashier(true);
      break;
    case 'error':
      say(message.code === 'LAUNCH_INVALID'
        ? 'This game link has expired: go back to the lobby and start the game again.'
        : `The game reports ${message.code}.`);
      break;
    case 'resize':
      if (Number.isSafeInteger(message.height) && message.height > 0) {
        game.frame.style.height = Math.min(message.height, MAX_FRAME_HEIGHT) + 'px';
      }
      break;
  }
});

$('login-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  say('');
  try {
    await call('POST', '/api/login', { name: $('name').value });
    await enterLobby();
  } catch (error) {
    say(error.message);
  }
});

$('logout').addEventListener('click', async () => {
  closeGame();
  await call('POST', '/api/logout').catch(() => null);
  await enterLobby();
});

$('launch').addEventListener('click', async () => {
  say('');
  try {
    const launch = await call('POST', '/api/launch', { lang: $('lang').value });
    openGame(launch.url);
  } catch (error) {
    say(error.message);
  }
});

$('back').addEventListener('click', enterLobby);

$('mute').addEventListener('click', () => {
  muted = !muted;
  $('mute').setAttribute('aria-pressed', String(muted));
  $('mute').textContent = muted ? 'Unmute' : 'Mute';
  send({ type: muted ? 'mute' : 'unmute' });
});

$('open-cashier').addEventListener('click', () => openCashier(false));

for (const button of document.querySelectorAll('#cashier [data-cents]')) {
  button.addEventListener('click', async () => {
    try {
      const me = await call('POST', '/api/cashier', { amount_cents: Number(button.dataset.cents) });
      // While the game runs, the balance shown is the game's: ask it to
      // read the new one, which comes back as a `balance` message.
      if (game) send({ type: 'refresh_balance' });
      else showBalance(me.balance_cents, 'portal');
      $('cashier').close();
    } catch (error) {
      say(error.message);
    }
  });
}

enterLobby();
