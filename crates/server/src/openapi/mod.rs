//! The OpenAPI document served at `/api/openapi.json`, generated from the
//! `eldorado_api` types and the handlers' `#[utoipa::path]` attributes, so it
//! cannot drift from what the server sends. Its tests hold it to the route
//! table and parse every example it shows.

mod modifiers;
#[cfg(test)]
mod tests;
pub mod wallet;

use crate::routes::{launch, log, operator, player, protection, public};
use eldorado_api::schema::{SignedCommitmentSchema, SignedSaleSchema, TicketSchema};
use eldorado_api::{
    Balance, BlockInfo, BlockList, BuyRequest, Config, ConsistencyProof, CosignatureSubmission,
    DailyReport, DemoPlayerRequest, ErrorBody, ErrorCode, ExclusionRequest, Health, HistoryPage,
    InclusionProof, Launch, LaunchCodeRequest, LaunchMode, LaunchRequest, LimitsRequest, LogLeaves,
    OperatorExclusionRequest, OperatorSessionRequest, PageListing, Protection, ProtectionAudit,
    RealityCheckRequest, RevealAck, RevealRequest, SaleResponse, Session, SessionsEnded,
    TransferRequest,
};
use modifiers::{CommonErrors, RetryAfter, Security};
use utoipa::OpenApi;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Eldorado game server",
        version = "1",
        description = "docs/PROTOCOL.md, Part II. Money in integer cents, times in Unix milliseconds. \
            Signatures cover the canonical bytes of docs/PROTOCOL.md (Part I), never this JSON."
    ),
    paths(
        public::config, public::blocks, public::block, public::export, public::openapi,
        public::wallet_openapi,
        public::health,
        log::checkpoint, log::latest_checkpoint, log::covering_checkpoint, log::inclusion,
        log::consistency, log::leaves, log::page,
        log::cosign,
        player::create_demo_player, player::session, player::end_session, player::create_sale,
        player::sale, player::receipt, player::reveal, player::history,
        operator::create_session, operator::credit, operator::debit, operator::end_sessions,
        operator::close_block, operator::daily_report,
        protection::get_limits, protection::put_limits, protection::post_exclusion,
        protection::put_reality_check, protection::operator_put_limits,
        protection::operator_put_exclusion, protection::operator_protection,
        launch::create_launch, launch::exchange,
    ),
    // Listed so that every body type is in the document with its example,
    // also those only reached through another type.
    components(schemas(
        Config, Session, SaleResponse, BuyRequest, RevealRequest, RevealAck, HistoryPage,
        BlockInfo, BlockList, DemoPlayerRequest, OperatorSessionRequest, TransferRequest, Balance,
        ErrorBody, ErrorCode, Health, SessionsEnded, SignedSaleSchema, SignedCommitmentSchema, TicketSchema,
        Protection, LimitsRequest, ExclusionRequest, OperatorExclusionRequest, RealityCheckRequest,
        ProtectionAudit, LaunchRequest, LaunchMode, Launch, LaunchCodeRequest,
        InclusionProof, ConsistencyProof, LogLeaves, PageListing, CosignatureSubmission, DailyReport,
    )),
    modifiers(&Security, &CommonErrors, &RetryAfter)
)]
struct ApiDoc;

pub fn document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}
