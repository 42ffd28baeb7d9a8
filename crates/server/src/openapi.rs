//! The OpenAPI 3 document of the whole API, served at `/api/openapi.json`.

use serde_json::{json, Value};

pub fn document() -> Value {
    json!({"openapi": "3.0.3", "info": {"title": "Eldorado game server API", "version": "1"}, "paths": {}})
}
