//! Eldorado browser game (placeholder until the wasm game lands).
