//! Every API route in one table: the router is built from it, and the
//! OpenAPI test checks the document against it, so a route can be neither
//! served undocumented nor documented unserved.

use super::{launch, log, operator, player, protection, public};
use crate::state::AppState;
use axum::handler::Handler;
use axum::http::Method;
use axum::routing::{self, MethodRouter};

/// Where every path of the table is mounted.
pub const PREFIX: &str = "/api";

pub struct Endpoint {
    pub method: Method,
    /// Below [`PREFIX`], in axum's (and OpenAPI's) `{param}` syntax.
    pub path: &'static str,
    pub(super) route: MethodRouter<AppState>,
}

impl Endpoint {
    // The method is taken from the same call that builds the route, so the
    // table cannot say GET for a route that answers POST.
    fn get<H: Handler<T, AppState>, T: 'static>(path: &'static str, handler: H) -> Endpoint {
        Endpoint {
            method: Method::GET,
            path,
            route: routing::get(handler),
        }
    }

    fn delete<H: Handler<T, AppState>, T: 'static>(path: &'static str, handler: H) -> Endpoint {
        Endpoint {
            method: Method::DELETE,
            path,
            route: routing::delete(handler),
        }
    }

    fn put<H: Handler<T, AppState>, T: 'static>(path: &'static str, handler: H) -> Endpoint {
        Endpoint {
            method: Method::PUT,
            path,
            route: routing::put(handler),
        }
    }

    fn post<H: Handler<T, AppState>, T: 'static>(path: &'static str, handler: H) -> Endpoint {
        Endpoint {
            method: Method::POST,
            path,
            route: routing::post(handler),
        }
    }
}

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get("/config", public::config),
        Endpoint::get("/blocks", public::blocks),
        Endpoint::get("/blocks/{block}", public::block),
        Endpoint::get("/blocks/{block}/export", public::export),
        Endpoint::get("/openapi.json", public::openapi),
        Endpoint::get("/wallet-openapi.json", public::wallet_openapi),
        Endpoint::get("/health", public::health),
        Endpoint::get("/log/checkpoint", log::checkpoint),
        Endpoint::get("/log/checkpoint/latest", log::latest_checkpoint),
        Endpoint::get("/log/checkpoint/covering", log::covering_checkpoint),
        Endpoint::get("/log/proof/inclusion", log::inclusion),
        Endpoint::get("/log/proof/consistency", log::consistency),
        Endpoint::get("/log/leaves", log::leaves),
        Endpoint::get("/log/page", log::page),
        Endpoint::post("/log/cosignatures", log::cosign),
        Endpoint::post("/demo/players", player::create_demo_player),
        Endpoint::get("/session", player::session),
        Endpoint::delete("/session", player::end_session),
        Endpoint::post("/sales", player::create_sale),
        Endpoint::get("/sales/{sale_id}", player::sale),
        Endpoint::get("/sales/{sale_id}/receipt", player::receipt),
        Endpoint::post("/sales/{sale_id}/reveal", player::reveal),
        Endpoint::get("/history", player::history),
        Endpoint::post("/launch", launch::exchange),
        Endpoint::post("/operator/sessions", operator::create_session),
        Endpoint::post("/operator/launches", launch::create_launch),
        Endpoint::post("/operator/players/{player_id}/credit", operator::credit),
        Endpoint::post("/operator/players/{player_id}/debit", operator::debit),
        Endpoint::delete(
            "/operator/players/{player_id}/sessions",
            operator::end_sessions,
        ),
        Endpoint::post("/operator/blocks/{block}/close", operator::close_block),
        Endpoint::get("/operator/reports/daily", operator::daily_report),
        Endpoint::get("/limits", protection::get_limits),
        Endpoint::put("/limits", protection::put_limits),
        Endpoint::post("/exclusion", protection::post_exclusion),
        Endpoint::put("/reality-check", protection::put_reality_check),
        Endpoint::put(
            "/operator/players/{player_id}/limits",
            protection::operator_put_limits,
        ),
        Endpoint::put(
            "/operator/players/{player_id}/exclusion",
            protection::operator_put_exclusion,
        ),
        Endpoint::get(
            "/operator/players/{player_id}/protection",
            protection::operator_protection,
        ),
    ]
}
