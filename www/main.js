// The only JavaScript of the game: load the wasm module and mount it.
// Everything else (state, rules, verification, drawing) lives in Rust.
import init, { launch } from "./pkg/eldorado_web.js";

const root = document.getElementById("eldorado");
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
  const early = [send("GET", "/api/config")];
  if (!new URLSearchParams(location.search).has("launch")) {
    const token =
      stored("sessionStorage", "eldorado.launched_token") ?? stored("localStorage", "eldorado.demo_token");
    early.push(token ? send("GET", "/api/session", token) : send("POST", "/api/demo/players", null, "{}"));
  }
  return early;
}

async function main() {
  try {
    const early = earlyRequests();
    await init();
    game = launch(root, early);
  } catch (error) {
    // Kept for whoever opens the console (and the end-to-end logs); the
    // player gets the plain message below.
    console.error("Eldorado failed to start:", error);
    const english = new URLSearchParams(location.search).get("lang") === "en";
    root.textContent = english
      ? "The game could not start in this browser. Please update it or try another one."
      : "Le jeu n'a pas pu démarrer dans ce navigateur. Mettez-le à jour ou essayez-en un autre.";
    root.setAttribute("role", "alert");
  }
}

addEventListener("pagehide", (event) => {
  if (!event.persisted && game) {
    game.free();
    game = null;
  }
});

main();
