//! Eldorado game server (placeholder until the server lands).
