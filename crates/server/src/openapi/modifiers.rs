//! What every operation shares, added once instead of on each handler.

use eldorado_api::ErrorBody;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, ResponseBuilder};
use utoipa::{Modify, ToSchema};

/// The two bearer schemes the handlers' `security(...)` name.
pub struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        for (name, description) in [
            ("player", "Session token (64 hex digits), valid 24 h"),
            ("operator", "The operator API key"),
        ] {
            components.add_security_scheme(
                name,
                SecurityScheme::Http(
                    HttpBuilder::new()
                        .scheme(HttpAuthScheme::Bearer)
                        .description(Some(description))
                        .build(),
                ),
            );
        }
    }
}

/// The errors any API request may get (the extractors answer them before a
/// handler runs), unless the handler documents its own.
pub struct CommonErrors;

const COMMON: &[(&str, &str)] = &[
    (
        "400",
        "BAD_REQUEST: malformed JSON, wrong types, missing fields",
    ),
    ("413", "PAYLOAD_TOO_LARGE: a body over the limit"),
    ("408", "REQUEST_TIMEOUT: the body did not arrive in time"),
    ("500", "INTERNAL: a server fault, never a client mistake"),
    (
        "503",
        "OVERLOADED (with `Retry-After`) or TIMEOUT: retry later, a sale with the same key",
    ),
];
const UNAUTHORIZED: (&str, &str) = (
    "401",
    "UNAUTHORIZED: missing, malformed, forged or expired token or key",
);
/// A player's token may also name a session ended for newer ones.
const UNAUTHORIZED_PLAYER: (&str, &str) = (
    "401",
    "UNAUTHORIZED: missing, malformed, forged or expired token; TOO_MANY_SESSIONS: \
     the session was ended because its player opened `--max-sessions-per-player` newer ones",
);

/// Every operation of the document, with its path.
fn operations(
    openapi: &mut utoipa::openapi::OpenApi,
) -> impl Iterator<Item = (&String, &mut utoipa::openapi::path::Operation)> {
    openapi.paths.paths.iter_mut().flat_map(|(path, item)| {
        [
            &mut item.get,
            &mut item.post,
            &mut item.put,
            &mut item.delete,
        ]
        .into_iter()
        .flatten()
        .map(move |operation| (path, operation))
    })
}

impl Modify for CommonErrors {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for (path, operation) in operations(openapi) {
            // The document and the health check take no input and need no key.
            if path.ends_with("/openapi.json") || path.ends_with("/health") {
                continue;
            }
            let schemes = operation.security.as_ref().map_or(Vec::new(), |s| {
                s.iter()
                    .filter_map(|r| serde_json::to_value(r).ok())
                    .collect()
            });
            let player = schemes.iter().any(|s| s.get("player").is_some());
            let extra = match (player, schemes.is_empty()) {
                (true, _) => Some(UNAUTHORIZED_PLAYER),
                (false, false) => Some(UNAUTHORIZED),
                (false, true) => None,
            };
            for (status, description) in COMMON.iter().copied().chain(extra) {
                operation
                    .responses
                    .responses
                    .entry(status.to_owned())
                    .or_insert_with(|| error_response(description).into());
            }
        }
    }
}

fn error_response(description: &str) -> utoipa::openapi::Response {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name(ErrorBody::name())))
                .build(),
        )
        .build()
}

/// Every 429 and 503 answer carries `Retry-After` (the server adds it to
/// any that lacks it: `routes::retry_after_on_refusals`); the document says
/// so on each. Runs after [`CommonErrors`], which adds the 503s.
pub struct RetryAfter;

impl Modify for RetryAfter {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for (_, operation) in operations(openapi) {
            for (status, response) in operation.responses.responses.iter_mut() {
                let (RefOr::T(response), "429" | "503") = (response, status.as_str()) else {
                    continue;
                };
                response.headers.insert(
                    "Retry-After".to_owned(),
                    HeaderBuilder::new()
                        .schema(
                            ObjectBuilder::new()
                                .schema_type(Type::Integer)
                                .minimum(Some(0)),
                        )
                        .description(Some("Seconds to wait before asking again"))
                        .build(),
                );
            }
        }
    }
}
