//! The OpenAPI 3 document of the whole API, served at `/api/openapi.json`.
//! Written by hand from docs/PROTOCOL.md (Part II); a test checks every route
//! of the router is in it.

use serde_json::{json, Value};

fn error_response(description: &str) -> Value {
    json!({"description": description,
           "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}})
}

fn ok(description: &str, schema: &str) -> Value {
    json!({"description": description,
           "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{schema}")}}}})
}

fn body(schema: Value) -> Value {
    json!({"required": true, "content": {"application/json": {"schema": schema}}})
}

fn id_param(name: &str, description: &str) -> Value {
    json!({"name": name, "in": "path", "required": true, "description": description,
           "schema": {"type": "string"}})
}

fn operation(summary: &str, security: Option<&str>, mut responses: Value) -> Value {
    let map = responses.as_object_mut().expect("responses is an object");
    map.insert(
        "400".into(),
        error_response("BAD_REQUEST (malformed JSON, wrong types, missing fields)"),
    );
    map.insert("413".into(), error_response("PAYLOAD_TOO_LARGE"));
    map.insert(
        "500".into(),
        error_response("INTERNAL (never for a client mistake)"),
    );
    if security.is_some() {
        map.insert(
            "401".into(),
            error_response("UNAUTHORIZED: missing, expired or forged token"),
        );
    }
    let mut op = json!({"summary": summary, "responses": responses});
    if let Some(scheme) = security {
        op["security"] = json!([{ scheme: [] }]);
    }
    op
}

pub fn document() -> Value {
    let amount = json!({"type": "object", "required": ["amount_cents", "reference"], "properties": {
        "amount_cents": {"type": "integer", "minimum": 1, "maximum": 100_000_000},
        "reference": {"type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,64}$",
                      "description": "The operator's transfer id: applied once per reference."}}});
    let mut credit = operation(
        "Credit an operator player (transfer in)",
        Some("operator"),
        json!({"200": ok("New balance", "Balance"), "403": error_response("FORBIDDEN: demo player"),
               "409": error_response("CONFLICT: reference reused for another transfer")}),
    );
    credit["parameters"] = json!([id_param("player_id", "Operator's player id")]);
    credit["requestBody"] = body(amount.clone());
    let mut debit = operation(
        "Debit an operator player (transfer out)",
        Some("operator"),
        json!({"200": ok("New balance", "Balance"), "402": error_response("INSUFFICIENT_FUNDS"),
               "404": error_response("NOT_FOUND: unknown player"),
               "409": error_response("CONFLICT: reference reused for another transfer")}),
    );
    debit["parameters"] = json!([id_param("player_id", "Operator's player id")]);
    debit["requestBody"] = body(amount);

    let mut sale = operation(
        "Buy the next ticket of a stake (one durable transaction)",
        Some("player"),
        json!({"200": ok("The signed sale (same sale again for a retried key)", "SaleResponse"),
               "402": error_response("INSUFFICIENT_FUNDS"),
               "409": error_response("CONFLICT: idempotency key used with another stake"),
               "503": error_response("SOLD_OUT: no block of this stake on sale")}),
    );
    sale["requestBody"] = body(
        json!({"type": "object", "required": ["stake_cents", "idempotency_key"],
        "properties": {"stake_cents": {"type": "integer", "enum": [50, 100, 200]},
                       "idempotency_key": {"type": "string", "pattern": "^[A-Za-z0-9_-]{8,64}$"}}}),
    );
    let mut get_sale = operation(
        "One of the player's own sales, signed",
        Some("player"),
        json!({"200": ok("The signed sale", "SaleResponse"), "404": error_response("NOT_FOUND")}),
    );
    get_sale["parameters"] = json!([id_param("sale_id", "Sale id")]);
    let mut reveal = operation(
        "Report reveal progress (never decreases)",
        Some("player"),
        json!({"200": ok("Stored progress", "Reveal"), "404": error_response("NOT_FOUND")}),
    );
    reveal["parameters"] = json!([id_param("sale_id", "Sale id")]);
    reveal["requestBody"] = body(json!({"type": "object", "required": ["revealed"],
        "properties": {"revealed": {"type": "integer", "minimum": 0, "maximum": 4,
            "description": "Grids fully revealed: 0..=1+extras"}}}));
    let mut history = operation(
        "The player's tickets, newest first",
        Some("player"),
        json!({"200": ok("A page of history", "History")}),
    );
    history["parameters"] = json!([
        {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}},
        {"name": "before", "in": "query", "schema": {"type": "integer"}, "description": "next_before of the previous page"}]);
    let mut block = operation(
        "One block",
        None,
        json!({"200": ok("The block", "BlockInfo"), "404": error_response("NOT_FOUND")}),
    );
    block["parameters"] = json!([id_param("block", "Block id")]);
    let mut export = operation(
        "Full disclosure of a sold-out or closed block (JSON Lines)",
        None,
        json!({"200": {"description": "engine ExportHeader line, then one ExportRow line per ticket",
                       "content": {"application/jsonl": {"schema": {"type": "string"}}}},
               "404": error_response("NOT_FOUND"),
               "409": error_response("CONFLICT: the block is open or pending")}),
    );
    export["parameters"] = json!([id_param("block", "Block id")]);
    let mut close = operation(
        "Close an open or pending block",
        Some("operator"),
        json!({"200": ok("The block", "BlockInfo"), "404": error_response("NOT_FOUND")}),
    );
    close["parameters"] = json!([id_param("block", "Block id")]);
    let mut op_session = operation(
        "Create a session for an operator's player",
        Some("operator"),
        json!({"201": ok("A new session", "Session"), "403": error_response("FORBIDDEN: demo player id")}),
    );
    op_session["requestBody"] = body(json!({"type": "object", "required": ["player_id"],
        "properties": {"player_id": {"type": "string", "pattern": "^[A-Za-z0-9_.-]{1,64}$"}}}));
    let mut demo = operation(
        "Create a play-money player (demo mode only)",
        None,
        json!({"201": ok("A new session with the starting balance", "Session"),
               "403": error_response("DEMO_DISABLED")}),
    );
    demo["requestBody"] =
        json!({"required": false, "content": {"application/json": {"schema": {"type": "object"}}}});

    let object = |v: Value| json!({"type": "object", "properties": v});
    json!({
        "openapi": "3.0.3",
        "info": {"title": "Eldorado game server", "version": "1",
                 "description": "All money in integer cents, times in Unix milliseconds. Engine types (SignedSale, SignedCommitment, Ticket) keep the serde form of eldorado_engine; signatures cover the canonical bytes of docs/PROTOCOL.md."},
        "paths": {
            "/api/config": {"get": operation("Game configuration", None, json!({"200": ok("Configuration", "Config")}))},
            "/api/demo/players": {"post": demo},
            "/api/session": {"get": operation("The current session, balance and unrevealed ticket", Some("player"),
                json!({"200": ok("The session", "Session")}))},
            "/api/sales": {"post": sale},
            "/api/sales/{sale_id}": {"get": get_sale},
            "/api/sales/{sale_id}/reveal": {"post": reveal},
            "/api/history": {"get": history},
            "/api/blocks": {"get": operation("Open and pending blocks, and recent finished ones", None,
                json!({"200": {"description": "Blocks", "content": {"application/json": {"schema":
                    object(json!({"blocks": {"type": "array", "items": {"$ref": "#/components/schemas/BlockInfo"}}}))}}}}))},
            "/api/blocks/{block}": {"get": block},
            "/api/blocks/{block}/export": {"get": export},
            "/api/operator/sessions": {"post": op_session},
            "/api/operator/players/{player_id}/credit": {"post": credit},
            "/api/operator/players/{player_id}/debit": {"post": debit},
            "/api/operator/blocks/{block}/close": {"post": close},
            "/api/openapi.json": {"get": {"summary": "This document", "responses": {"200": {"description": "OpenAPI 3"}}}}
        },
        "components": {
            "securitySchemes": {
                "player": {"type": "http", "scheme": "bearer", "description": "Session token (64 hex digits)"},
                "operator": {"type": "http", "scheme": "bearer", "description": "Operator API key"}
            },
            "schemas": {
                "Error": object(json!({"error": object(json!({
                    "code": {"type": "string", "enum": ["INVALID_STAKE", "INSUFFICIENT_FUNDS", "UNAUTHORIZED", "FORBIDDEN",
                        "NOT_FOUND", "BAD_REQUEST", "PAYLOAD_TOO_LARGE", "CONFLICT", "DEMO_DISABLED", "SOLD_OUT",
                        "METHOD_NOT_ALLOWED", "INTERNAL"]},
                    "message": {"type": "string"}}))})),
                "Config": object(json!({
                    "stakes_cents": {"type": "array", "items": {"type": "integer"}},
                    "public_key": {"type": "string", "description": "hex Ed25519 operator key"},
                    "rtp_basis_points": {"type": "integer"},
                    "odds": object(json!({"tickets": {"type": "integer"}, "winners": {"type": "integer"}})),
                    "max_win_cents": {"type": "object", "additionalProperties": {"type": "integer"}},
                    "prize_table": {"type": "array", "items": object(json!({
                        "rank": {"type": "integer"}, "multiple": {"type": "integer"}, "count": {"type": "integer"},
                        "direct": {"type": "integer"}, "via_extras": {"type": "integer"},
                        "decompositions": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}}))},
                    "demo": {"type": "boolean"},
                    "starting_balance_cents": {"type": "integer"}})),
                "Session": object(json!({
                    "token": {"type": "string"}, "player_id": {"type": "string"},
                    "balance_cents": {"type": "integer"}, "expires_at_ms": {"type": "integer"},
                    "unrevealed": {"nullable": true, "allOf": [{"$ref": "#/components/schemas/SaleResponse"}]}})),
                "SaleResponse": object(json!({
                    "sale": {"type": "object", "description": "engine SignedSale: sale_id, block, tickets, ticket, proof, player, sold_at_ms, signature"},
                    "commitment": {"type": "object", "description": "engine SignedCommitment of sale.block"},
                    "balance_before_cents": {"type": "integer"}, "balance_after_cents": {"type": "integer"},
                    "revealed": {"type": "integer"}, "complete": {"type": "boolean"}})),
                "Reveal": object(json!({"sale_id": {"type": "integer"}, "revealed": {"type": "integer"},
                    "complete": {"type": "boolean"}})),
                "History": object(json!({
                    "items": {"type": "array", "items": object(json!({
                        "sale_id": {"type": "integer"}, "block": {"type": "integer"}, "position": {"type": "integer"},
                        "sold_at_ms": {"type": "integer"}, "stake_cents": {"type": "integer"},
                        "prize_cents": {"type": "integer"}, "extras": {"type": "integer"},
                        "status": {"type": "string", "enum": ["revealed", "unrevealed"]},
                        "revealed": {"type": "integer"}}))},
                    "next_before": {"type": "integer", "nullable": true}})),
                "BlockInfo": object(json!({
                    "commitment": {"type": "object", "description": "engine SignedCommitment"},
                    "status": {"type": "string", "enum": ["open", "pending", "sold_out", "closed"]},
                    "sold": {"type": "integer"},
                    "remaining_by_rank": {"type": "array", "items": object(json!({
                        "rank": {"type": "integer"}, "remaining": {"type": "integer"}}))}})),
                "Balance": object(json!({"player_id": {"type": "string"}, "balance_cents": {"type": "integer"}}))
            }
        }
    })
}
