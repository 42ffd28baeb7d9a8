// The only JavaScript of the game: load the wasm module and mount it.
// Everything else (state, rules, verification, drawing) lives in Rust.
// The glue is imported once the first requests are out (below), so that
// they leave as soon as this script arrives, not once the glue has too.

let game = null;

// The game's first requests, sent now rather than once its module has
// arrived: on a phone network that is a round trip less before « Jouer ».
// The choice follows the game's own (`load_session`, src/app/session.rs):
// a launch code is traded only after the configuration, so only the
// configuration goes early; otherwise this tab's launched session, the
// remembered demo player, or a new demo player. The game takes an answer
// only for the same exchange it would send (src/net.rs, `Early`).
function earlyRequests() {
  const send = (method, path, token, body) => {
    const headers = { Accept: "application/json" };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body) headers["Content-Type"] = "application/json";
    // The game's timeout (src/net.rs).
    const reply = fetch(path, { method, headers, body, signal: AbortSignal.timeout(10000) });
    // Read by the game, which reports a failure; never an unhandled rejection.
    reply.catch(() => {});
    return { method, path, token, body, reply };
  };
  const stored = (storage, key) => {
    try {
      return window[storage].getItem(key);
    } catch {
      return null;
    }
  };
  // The built page's trust policy (scripts/page-policy.sh) beside the
  // configuration: the game compares the one with the other before playing.
  const early = [send("GET", "/api/config"), send("GET", "/www/pkg/page-policy.json")];
  if (!new URLSearchParams(location.search).has("launch")) {
    const token =
      stored("sessionStorage", "eldorado.launched_token") ?? stored("localStorage", "eldorado.demo_token");
    early.push(token ? send("GET", "/api/session", token) : send("POST", "/api/demo/players", null, "{}"));
  }
  return early;
}

// The module as the built page carries it (scripts/hash-web.sh), one
// character per byte, or nothing (the source page): then the glue fetches
// it. Carried, it comes with the page instead of a round trip after it.
function carriedModule() {
  const block = document.getElementById("eldorado-module");
  const text = block ? block.textContent : "";
  if (!text) return undefined;
  block.remove();
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // The three bytes the page cannot carry as themselves (NUL, CR, "<") come as U+0100 + byte.
    bytes[i] = c >= 0x100 ? c - 0x100 : c;
  }
  return bytes;
}

// The check of the beacon's rounds, a module of its own
// (crates/beacon-check): most of a deal's check, needed by no one before
// the first deal, so kept out of the first download. The game asks for it
// once it knows the server deals by a beacon. A failed download is tried
// again at the next ask.
let roundCheck = null;
function loadRoundCheck() {
  if (!roundCheck) {
    roundCheck = import("./pkg/eldorado_beacon_check.js").then(async (module) => {
      await module.default();
      return module.verify_round;
    });
    roundCheck.catch(() => {
      roundCheck = null;
    });
  }
  return roundCheck;
}

async function main() {
  // This script runs as soon as it arrives (async), before the rest of the
  // page (the module it carries, the game's element) is read.
  const parsed =
    document.readyState === "loading"
      ? new Promise((done) => addEventListener("DOMContentLoaded", done, { once: true }))
      : Promise.resolve();
  const root = () => document.getElementById("eldorado");
  try {
    const early = earlyRequests();
    const { default: init, launch } = await import("./pkg/eldorado_web.js");
    await parsed;
    const bytes = carriedModule();
    await init(bytes ? { module_or_path: bytes } : undefined);
    game = launch(root(), early, loadRoundCheck);
  } catch (error) {
    // Kept for whoever opens the console (and the end-to-end logs); the
    // player gets the plain message below.
    console.error("Eldorado failed to start:", error);
    await parsed;
    const english = new URLSearchParams(location.search).get("lang") === "en";
    root().textContent = english
      ? "The game could not start in this browser. Please update it or try another one."
      : "Le jeu n'a pas pu démarrer dans ce navigateur. Mettez-le à jour ou essayez-en un autre.";
    root().setAttribute("role", "alert");
  }
}

addEventListener("pagehide", (event) => {
  if (!event.persisted && game) {
    game.free();
    game = null;
  }
});

main();
