use super::document;
use crate::routes::{endpoints, PREFIX};
use eldorado_api::schema::{SignedCommitmentSchema, SignedSaleSchema, TicketSchema};
use eldorado_api::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;
use utoipa::ToSchema;

fn doc() -> Value {
    serde_json::to_value(document()).unwrap()
}

/// What reading an example as its type and writing it back gives.
type RoundTrip = fn(&Value) -> Result<Value, serde_json::Error>;

fn round_trip<T: DeserializeOwned + Serialize>(
    example: &Value,
) -> Result<Value, serde_json::Error> {
    serde_json::to_value(serde_json::from_value::<T>(example.clone())?)
}

/// Each documented schema with the Rust type its examples must parse as
/// (the engine's own types for the hand-described engine schemas).
fn wire_types() -> Vec<(String, RoundTrip)> {
    fn entry<S: ToSchema, T: DeserializeOwned + Serialize>() -> (String, RoundTrip) {
        (S::name().into_owned(), round_trip::<T>)
    }
    vec![
        entry::<Config, Config>(),
        entry::<Session, Session>(),
        entry::<SaleResponse, SaleResponse>(),
        entry::<BuyRequest, BuyRequest>(),
        entry::<RevealRequest, RevealRequest>(),
        entry::<RevealAck, RevealAck>(),
        entry::<HistoryItem, HistoryItem>(),
        entry::<HistoryPage, HistoryPage>(),
        entry::<BlockInfo, BlockInfo>(),
        entry::<BlockList, BlockList>(),
        entry::<DemoPlayerRequest, DemoPlayerRequest>(),
        entry::<OperatorSessionRequest, OperatorSessionRequest>(),
        entry::<TransferRequest, TransferRequest>(),
        entry::<Balance, Balance>(),
        entry::<SessionsEnded, SessionsEnded>(),
        entry::<LaunchRequest, LaunchRequest>(),
        entry::<Launch, Launch>(),
        entry::<LaunchCodeRequest, LaunchCodeRequest>(),
        entry::<Health, Health>(),
        entry::<ErrorBody, ErrorBody>(),
        entry::<Protection, Protection>(),
        entry::<LimitsRequest, LimitsRequest>(),
        entry::<ExclusionRequest, ExclusionRequest>(),
        entry::<OperatorExclusionRequest, OperatorExclusionRequest>(),
        entry::<RealityCheckRequest, RealityCheckRequest>(),
        entry::<AuditEntry, AuditEntry>(),
        entry::<ProtectionAudit, ProtectionAudit>(),
        entry::<SignedSaleSchema, eldorado_engine::SignedSale>(),
        entry::<SignedCommitmentSchema, eldorado_engine::SignedCommitment>(),
        entry::<TicketSchema, eldorado_engine::Ticket>(),
        entry::<InclusionProof, InclusionProof>(),
        entry::<ConsistencyProof, ConsistencyProof>(),
        entry::<LogLeaves, LogLeaves>(),
        entry::<PageListing, PageListing>(),
        entry::<CosignatureSubmission, CosignatureSubmission>(),
        entry::<DailyReport, DailyReport>(),
    ]
}

#[test]
#[ignore = "prints the document: cargo test -p eldorado-server --lib print_the_document -- --ignored"]
fn print_the_document() {
    println!("{}", serde_json::to_string_pretty(&doc()).unwrap());
}

#[test]
fn every_route_is_documented_with_its_method_and_nothing_else_is() {
    let doc = doc();
    let endpoints = endpoints();
    for endpoint in &endpoints {
        let path = format!("{PREFIX}{}", endpoint.path);
        let method = endpoint.method.as_str().to_ascii_lowercase();
        assert!(
            doc["paths"][&path][&method].is_object(),
            "{} {path} is served but not documented",
            endpoint.method
        );
    }
    let documented: usize = doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .map(|item| item.as_object().unwrap().len())
        .sum();
    assert_eq!(
        documented,
        endpoints.len(),
        "the document has operations that no route serves"
    );
}

#[test]
fn every_path_parameter_is_declared() {
    let doc = doc();
    for (path, item) in doc["paths"].as_object().unwrap() {
        let named: BTreeSet<&str> = path
            .split('/')
            .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
            .collect();
        for (method, operation) in item.as_object().unwrap() {
            let declared: BTreeSet<&str> = operation["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["in"] == "path")
                .map(|p| p["name"].as_str().unwrap())
                .collect();
            assert_eq!(declared, named, "{method} {path}");
        }
    }
}

/// Every `example`/`examples` anywhere in `value`, with its JSON pointer.
fn examples_in(value: &Value, pointer: String, found: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let here = format!("{pointer}/{key}");
                if key == "example" || key == "examples" {
                    found.push((here, child.clone()));
                } else {
                    examples_in(child, here, found);
                }
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                examples_in(child, format!("{pointer}/{i}"), found);
            }
        }
        _ => {}
    }
}

#[test]
fn every_example_parses_as_its_type_and_shows_every_field() {
    let doc = doc();
    let types = wire_types();
    let mut found = Vec::new();
    examples_in(&doc, String::new(), &mut found);
    let mut checked = BTreeSet::new();
    for (pointer, examples) in found {
        let name = pointer
            .strip_prefix("/components/schemas/")
            .and_then(|rest| rest.strip_suffix("/examples"))
            .unwrap_or_else(|| panic!("an example outside a schema's `examples`: {pointer}"));
        let (_, round_trip) = types
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no Rust type listed for the examples of {name}"));
        let schema = &doc["components"]["schemas"][name];
        let properties: BTreeSet<&String> = schema["properties"]
            .as_object()
            .into_iter()
            .flat_map(|p| p.keys())
            .collect();
        for example in examples.as_array().unwrap() {
            let read = round_trip(example)
                .unwrap_or_else(|e| panic!("the example of {name} does not parse: {e}"));
            // Equal after a round trip: no field the type would drop or add.
            assert_eq!(&read, example, "{name}");
            let keys: BTreeSet<&String> = example.as_object().unwrap().keys().collect();
            assert_eq!(keys, properties, "the example and schema of {name}");
        }
        checked.insert(name.to_owned());
    }
    let listed: BTreeSet<String> = types.into_iter().map(|(n, _)| n).collect();
    assert_eq!(checked, listed, "every listed type has an example");
}

#[test]
fn every_reference_resolves() {
    let doc = doc();
    let text = doc.to_string();
    for reference in text.split("\"$ref\":\"").skip(1) {
        let target = reference.split('"').next().unwrap();
        let name = target.strip_prefix("#/components/schemas/").unwrap();
        assert!(
            doc["components"]["schemas"][name].is_object(),
            "{target} is not in the document"
        );
    }
}

/// A player's token may name a session ended for newer ones: its 401 says
/// so; the operator key's does not.
#[test]
fn a_players_401_names_too_many_sessions() {
    let doc = doc();
    let description = |path: &str, method: &str| {
        doc["paths"][path][method]["responses"]["401"]["description"]
            .as_str()
            .unwrap_or_else(|| panic!("{method} {path} has no 401"))
            .to_owned()
    };
    for (path, method) in [("/api/session", "get"), ("/api/sales", "post")] {
        assert!(
            description(path, method).contains("TOO_MANY_SESSIONS"),
            "{method} {path}"
        );
    }
    let operator = description("/api/operator/sessions", "post");
    assert!(operator.starts_with("UNAUTHORIZED"), "{operator}");
    assert!(!operator.contains("TOO_MANY_SESSIONS"), "{operator}");
    assert!(doc["paths"]["/api/config"]["get"]["responses"]["401"].is_null());
}
