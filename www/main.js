// The only JavaScript of the game: load the wasm module and mount it.
// Everything else (state, rules, verification, drawing) lives in Rust.
import init, { launch } from "./pkg/eldorado_web.js";

const root = document.getElementById("eldorado");
let game = null;

async function main() {
  try {
    await init();
    game = launch(root);
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
