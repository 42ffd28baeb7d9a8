//! OpenAPI schemas of the engine's signed objects. The engine must not know
//! about OpenAPI, so their shapes are described here, by hand; the server's
//! tests hold each description to the engine's actual serde form through the
//! examples (same fields, and each example parses as the engine type).

use crate::examples;
use std::borrow::Cow;
use utoipa::openapi::schema::{
    ArrayBuilder, KnownFormat, ObjectBuilder, Schema, SchemaFormat, Type,
};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

type Schemas = Vec<(String, RefOr<Schema>)>;

fn integer(format: KnownFormat, description: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .format(Some(SchemaFormat::KnownFormat(format)))
        .minimum(Some(0))
        .description(Some(description))
}

fn hex(bytes: usize, description: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(format!("^[0-9a-fA-F]{{{}}}$", bytes * 2)))
        .description(Some(description))
}

fn object(description: &str, fields: Vec<(&str, RefOr<Schema>)>) -> ObjectBuilder {
    fields.into_iter().fold(
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some(description)),
        |object, (name, schema)| object.property(name, schema).required(name),
    )
}

fn reference<T: ToSchema>() -> RefOr<Schema> {
    RefOr::Ref(Ref::from_schema_name(T::name()))
}

/// `eldorado_engine::Ticket`.
pub struct TicketSchema;

impl PartialSchema for TicketSchema {
    fn schema() -> RefOr<Schema> {
        let grid = ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some("^[PCSDMR]{5}/[PCSDMR]{5}/[PCSDMR]{5}$"))
            .description(Some("15 symbols, row by row"));
        object(
            "One ticket of a block, as fixed when the block was generated.",
            vec![
                (
                    "position",
                    integer(KnownFormat::Int32, "0-based place in sale order").into(),
                ),
                (
                    "stake_cents",
                    integer(KnownFormat::Int64, "50, 100 or 200").into(),
                ),
                (
                    "grids",
                    ArrayBuilder::new()
                        .items(grid)
                        .min_items(Some(1))
                        .max_items(Some(4))
                        .description(Some(
                            "Main grid first, then the Extra grids in reveal order",
                        ))
                        .into(),
                ),
                (
                    "prize_cents",
                    integer(KnownFormat::Int64, "The claimed prize").into(),
                ),
                ("extras", integer(KnownFormat::Int32, "0..=3").into()),
                ("salt", hex(16, "Secret until sold").into()),
            ],
        )
        .examples([examples::ticket()])
        .into()
    }
}

impl ToSchema for TicketSchema {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Ticket")
    }
}

/// `eldorado_engine::SignedSale`: signed over the canonical bytes of
/// docs/PROTOCOL.md §5, never over this JSON.
pub struct SignedSaleSchema;

impl PartialSchema for SignedSaleSchema {
    fn schema() -> RefOr<Schema> {
        let proof = ArrayBuilder::new()
            .items(hex(32, "Sibling hash"))
            .description(Some(
                "Sibling hashes from the leaf up (docs/PROTOCOL.md §2)",
            ));
        object(
            "A sale signed by the operator key (docs/PROTOCOL.md §5).",
            vec![
                (
                    "sale_id",
                    integer(KnownFormat::Int64, "The operator's id of the sale").into(),
                ),
                ("block", integer(KnownFormat::Int64, "Block id").into()),
                (
                    "tickets",
                    integer(KnownFormat::Int32, "Leaves in the block's tree").into(),
                ),
                ("ticket", reference::<TicketSchema>()),
                ("proof", proof.into()),
                (
                    "player",
                    ObjectBuilder::new().schema_type(Type::String).into(),
                ),
                (
                    "sold_at_ms",
                    integer(KnownFormat::Int64, "Unix milliseconds").into(),
                ),
                (
                    "client_nonce",
                    hex(16, "The buyer's nonce from the purchase request").into(),
                ),
                ("signature", hex(64, "Ed25519").into()),
            ],
        )
        // Both or neither: signed from layout V3 on (docs/PROTOCOL.md §5a).
        .property(
            "balance_before_cents",
            integer(
                KnownFormat::Int64,
                "The buyer's balance before the sale (V3)",
            ),
        )
        .property(
            "balance_after_cents",
            integer(
                KnownFormat::Int64,
                "The buyer's balance after the sale (V3)",
            ),
        )
        .examples([examples::signed_sale()])
        .into()
    }
}

impl ToSchema for SignedSaleSchema {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("SignedSale")
    }

    fn schemas(schemas: &mut Schemas) {
        schemas.push((TicketSchema::name().into(), TicketSchema::schema()));
    }
}

/// `eldorado_engine::SignedCommitment`: signed over docs/PROTOCOL.md §4.
pub struct SignedCommitmentSchema;

impl PartialSchema for SignedCommitmentSchema {
    fn schema() -> RefOr<Schema> {
        object(
            "A block commitment, published before the block's first sale (docs/PROTOCOL.md §4).",
            vec![
                ("block", integer(KnownFormat::Int64, "Block id").into()),
                (
                    "stake_cents",
                    integer(KnownFormat::Int64, "50, 100 or 200").into(),
                ),
                ("tickets", integer(KnownFormat::Int32, "400000").into()),
                (
                    "money",
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .enum_values(Some(["real", "play"]))
                        .description(Some("Real money or play money (demo players)"))
                        .into(),
                ),
                ("prize_table", hex(32, "Prize table digest (§3)").into()),
                ("root", hex(32, "Merkle root (§2)").into()),
                ("public_key", hex(32, "The operator's Ed25519 key").into()),
                ("signature", hex(64, "Ed25519").into()),
            ],
        )
        .examples([examples::signed_commitment()])
        .into()
    }
}

impl ToSchema for SignedCommitmentSchema {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("SignedCommitment")
    }
}

/// An integer that may only be one of `choices` (JSON Schema `enum`), for
/// the fields whose server refuses every other number.
fn integer_choice(choices: &[u64], description: &str, nullable: bool) -> Schema {
    let mut values: Vec<serde_json::Value> = choices.iter().map(|&c| c.into()).collect();
    let schema_type = if nullable {
        values.push(serde_json::Value::Null);
        utoipa::openapi::schema::SchemaType::from_iter([Type::Integer, Type::Null])
    } else {
        utoipa::openapi::schema::SchemaType::new(Type::Integer)
    };
    ObjectBuilder::new()
        .schema_type(schema_type)
        .enum_values(Some(values))
        .description(Some(description))
        .into()
}

/// `BuyRequest.stake_cents`.
pub fn stake_cents() -> Schema {
    integer_choice(
        &[50, 100, 200],
        "50, 100 or 200; any other number is `INVALID_STAKE`",
        false,
    )
}

/// `ExclusionRequest.days`.
pub fn exclusion_days() -> Schema {
    integer_choice(
        &[1, 7, 30],
        "1, 7 or 30; `null`: until the operator lifts it",
        true,
    )
}

/// `RealityCheckRequest.minutes`.
pub fn reality_check_minutes() -> Schema {
    integer_choice(&[15, 30, 60], "15, 30 or 60", false)
}
