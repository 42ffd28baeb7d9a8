//! Player protection in the store, for every backend: limits enforced in
//! the sale's own transaction (also under concurrent sales), the 48-hour
//! delay of a raised limit, exclusions, and the audit of every change.

use crate::suite::{balance, insert, request, sell_one, sold, LOSE, PLAY, REAL, WIN_2};
use crate::{Backend, START_MS};
use eldorado_api::{AuditActor, LimitKind, Protection, ProtectionChange};
use eldorado_engine::Stake;
use eldorado_server::store::protection::{
    ProtectionDefaults, ProtectionUpdate, UpdateRefusal, RAISE_DELAY_MS, WEEK_MS,
};
use eldorado_server::store::{PlayerKind, SaleOutcome, Store};
use serde_json::json;
use std::sync::Arc;

const HOUR_MS: u64 = 3600 * 1000;

fn limits(stake: Option<u64>, loss: Option<u64>) -> ProtectionUpdate {
    ProtectionUpdate::Limits {
        weekly_stake_limit_cents: stake,
        weekly_loss_limit_cents: loss,
    }
}

fn change(
    store: &dyn Store,
    player: &str,
    update: ProtectionUpdate,
    actor: AuditActor,
    now_ms: u64,
) -> Result<Protection, UpdateRefusal> {
    store
        .update_protection(player, &update, actor, now_ms)
        .unwrap()
}

fn protection(store: &dyn Store, player: &str, now_ms: u64) -> Protection {
    store.protection(player, now_ms).unwrap().unwrap()
}

/// A real-money block of `tickets` losing tickets.
fn losing_block(store: &dyn Store, id: u64, stake: Stake, tickets: usize) {
    insert(store, id, stake, REAL, &vec![LOSE; tickets]);
}

pub fn concurrent_sales_never_overshoot_a_stake_limit(backend: &impl Backend) {
    let store = backend.open();
    losing_block(&*store, 1, Stake::HALF_EURO, 40);
    losing_block(&*store, 2, Stake::ONE_EURO, 40);
    losing_block(&*store, 3, Stake::TWO_EUROS, 40);
    store
        .create_player("ann", PlayerKind::Operator, 10_000)
        .unwrap();
    let now = START_MS;
    change(
        &*store,
        "ann",
        limits(Some(1_000), None),
        AuditActor::Player,
        now,
    )
    .unwrap();
    let stakes = [Stake::HALF_EURO, Stake::ONE_EURO, Stake::TWO_EUROS];
    let threads: Vec<_> = (0..32)
        .map(|i| {
            let store: Arc<dyn Store> = Arc::clone(&store);
            let stake = stakes[i % 3];
            std::thread::spawn(move || {
                let outcome = sell_one(&*store, request("ann", stake, &format!("k{i}")), now);
                (stake.cents(), outcome)
            })
        })
        .collect();
    let mut sold_cents = 0;
    let mut refused = Vec::new();
    for thread in threads {
        match thread.join().unwrap() {
            (stake, SaleOutcome::Sold(_)) => sold_cents += stake,
            (stake, SaleOutcome::LimitReached(limit)) => {
                assert_eq!(limit.kind, LimitKind::WeeklyStake);
                assert_eq!(limit.limit_cents, 1_000);
                assert!(limit.used_cents + stake > 1_000, "{limit:?}");
                // Everything was sold at one instant: it all leaves together.
                assert_eq!(limit.frees_at_ms, now + WEEK_MS);
                refused.push(stake);
            }
            (_, other) => panic!("unexpected {other:?}"),
        }
    }
    assert!(
        sold_cents <= 1_000,
        "sold {sold_cents} over a limit of 1000"
    );
    // Every refusal was needed: the room left holds none of the refused stakes.
    let room = 1_000 - sold_cents;
    assert!(
        refused.iter().all(|&s| s > room),
        "room {room}, refused {refused:?}"
    );
    assert_eq!(protection(&*store, "ann", now).stake_used_cents, sold_cents);
    assert_eq!(balance(&*store, "ann"), 10_000 - sold_cents);
    // Filled to the cent with the smallest stake, then refused.
    let mut key = 0;
    while sold_cents < 1_000 {
        key += 1;
        sold(sell_one(
            &*store,
            request("ann", Stake::HALF_EURO, &format!("fill{key}")),
            now,
        ));
        sold_cents += 50;
    }
    assert_eq!(sold_cents, 1_000);
    assert!(matches!(
        sell_one(&*store, request("ann", Stake::HALF_EURO, "over"), now),
        SaleOutcome::LimitReached(l) if l.used_cents == 1_000
    ));
    assert_eq!(store.totals().unwrap().stakes_cents, 1_000);
}

pub fn the_loss_limit_counts_each_stake_as_lost(backend: &impl Backend) {
    let store = backend.open();
    insert(
        &*store,
        1,
        Stake::ONE_EURO,
        REAL,
        &[LOSE, WIN_2, LOSE, LOSE, LOSE, LOSE],
    );
    store
        .create_player("bob", PlayerKind::Operator, 10_000)
        .unwrap();
    let t0 = START_MS;
    change(
        &*store,
        "bob",
        limits(None, Some(200)),
        AuditActor::Operator,
        t0,
    )
    .unwrap();
    // Loss 0 -> 100 -> (stake fits: 100 + 100) won 200: 0 -> 100 -> 200.
    for i in 0..4 {
        sold(sell_one(
            &*store,
            request("bob", Stake::ONE_EURO, &format!("s{i}")),
            t0 + i,
        ));
    }
    let p = protection(&*store, "bob", t0 + 10);
    assert_eq!((p.stake_used_cents, p.loss_used_cents), (400, 200));
    // 200 lost + this 100 if it loses > 200, though the next ticket loses
    // or wins alike: the refusal never depends on it.
    let refused = sell_one(&*store, request("bob", Stake::ONE_EURO, "s4"), t0 + 10);
    let SaleOutcome::LimitReached(limit) = refused else {
        panic!("expected LIMIT_REACHED, got {refused:?}")
    };
    assert_eq!(limit.kind, LimitKind::WeeklyLoss);
    assert_eq!((limit.limit_cents, limit.used_cents), (200, 200));
    // When the first loss leaves the window: 300 staked, 200 won.
    assert_eq!(limit.frees_at_ms, t0 + WEEK_MS);
    assert!(matches!(
        sell_one(
            &*store,
            request("bob", Stake::ONE_EURO, "s4"),
            t0 + WEEK_MS - 1
        ),
        SaleOutcome::LimitReached(_)
    ));
    sold(sell_one(
        &*store,
        request("bob", Stake::ONE_EURO, "s4"),
        t0 + WEEK_MS,
    ));
    assert_eq!(balance(&*store, "bob"), 10_000 - 500 + 200);
}

pub fn a_raised_limit_waits_48_hours_a_lowered_one_applies_at_once(backend: &impl Backend) {
    let store = backend.open();
    losing_block(&*store, 1, Stake::ONE_EURO, 10);
    store
        .create_player("cat", PlayerKind::Operator, 10_000)
        .unwrap();
    let t0 = START_MS;
    let first = change(
        &*store,
        "cat",
        limits(Some(100), None),
        AuditActor::Player,
        t0,
    )
    .unwrap();
    assert_eq!(first.weekly_stake_limit_cents, Some(100));
    sold(sell_one(&*store, request("cat", Stake::ONE_EURO, "a"), t0));
    assert!(matches!(
        sell_one(&*store, request("cat", Stake::ONE_EURO, "b"), t0),
        SaleOutcome::LimitReached(_)
    ));
    let raised = change(
        &*store,
        "cat",
        limits(Some(300), None),
        AuditActor::Player,
        t0 + 1,
    )
    .unwrap();
    assert_eq!(raised.weekly_stake_limit_cents, Some(100));
    let pending = raised.pending_weekly_stake_limit.unwrap();
    assert_eq!(
        (pending.limit_cents, pending.effective_at_ms),
        (Some(300), t0 + 1 + RAISE_DELAY_MS)
    );
    let almost = t0 + 1 + RAISE_DELAY_MS - 60_000;
    assert_eq!(
        protection(&*store, "cat", almost).weekly_stake_limit_cents,
        Some(100)
    );
    assert!(matches!(
        sell_one(&*store, request("cat", Stake::ONE_EURO, "b"), almost),
        SaleOutcome::LimitReached(_)
    ));
    let due = t0 + 1 + RAISE_DELAY_MS;
    let now = protection(&*store, "cat", due);
    assert_eq!(
        (now.weekly_stake_limit_cents, now.pending_weekly_stake_limit),
        (Some(300), None)
    );
    sold(sell_one(&*store, request("cat", Stake::ONE_EURO, "b"), due));
    // Removing the limit waits too; a lower request then cancels it.
    let removing = change(
        &*store,
        "cat",
        limits(None, None),
        AuditActor::Operator,
        due,
    )
    .unwrap();
    assert_eq!(removing.weekly_stake_limit_cents, Some(300));
    assert_eq!(
        removing.pending_weekly_stake_limit.unwrap().limit_cents,
        None
    );
    let lowered = change(
        &*store,
        "cat",
        limits(Some(200), None),
        AuditActor::Player,
        due + 1,
    )
    .unwrap();
    assert_eq!(
        (
            lowered.weekly_stake_limit_cents,
            lowered.pending_weekly_stake_limit
        ),
        (Some(200), None)
    );
    assert!(matches!(
        sell_one(&*store, request("cat", Stake::ONE_EURO, "c"), due + 2),
        SaleOutcome::LimitReached(_)
    ));
    let audit = store.protection_audit("cat").unwrap();
    let seen: Vec<_> = audit
        .iter()
        .map(|e| {
            (
                e.actor,
                e.change,
                e.old.clone(),
                e.new.clone(),
                e.at_ms,
                e.effective_at_ms,
            )
        })
        .collect();
    let stake = ProtectionChange::WeeklyStakeLimit;
    assert_eq!(
        seen,
        vec![
            (
                AuditActor::Player,
                stake,
                json!(300),
                json!(200),
                due + 1,
                due + 1
            ),
            (
                AuditActor::Operator,
                stake,
                json!(300),
                json!(null),
                due,
                due + RAISE_DELAY_MS
            ),
            (
                AuditActor::Player,
                stake,
                json!(100),
                json!(300),
                t0 + 1,
                due
            ),
            (AuditActor::Player, stake, json!(null), json!(100), t0, t0),
        ]
    );
}

pub fn exclusions_refuse_every_sale_and_only_lengthen(backend: &impl Backend) {
    let store = backend.open();
    losing_block(&*store, 1, Stake::ONE_EURO, 10);
    store
        .create_player("dan", PlayerKind::Operator, 10_000)
        .unwrap();
    let t0 = START_MS;
    let sale = sold(sell_one(
        &*store,
        request("dan", Stake::ONE_EURO, "before"),
        t0,
    ));
    let day = 24 * HOUR_MS;
    let excluded = change(
        &*store,
        "dan",
        ProtectionUpdate::SelfExclusion { days: Some(1) },
        AuditActor::Player,
        t0,
    )
    .unwrap();
    assert_eq!(
        (excluded.excluded_until_ms, excluded.excluded_indefinitely),
        (Some(t0 + day), false)
    );
    assert_eq!(
        sell_one(&*store, request("dan", Stake::ONE_EURO, "x"), t0 + 1),
        SaleOutcome::SelfExcluded {
            until_ms: Some(t0 + day)
        }
    );
    // A sale made before is still answered to its retry.
    assert_eq!(
        sell_one(&*store, request("dan", Stake::ONE_EURO, "before"), t0 + 1),
        SaleOutcome::Replayed(sale)
    );
    // Lengthened by the player, never shortened.
    change(
        &*store,
        "dan",
        ProtectionUpdate::SelfExclusion { days: Some(7) },
        AuditActor::Player,
        t0 + 2,
    )
    .unwrap();
    assert_eq!(
        change(
            &*store,
            "dan",
            ProtectionUpdate::SelfExclusion { days: Some(1) },
            AuditActor::Player,
            t0 + 3
        ),
        Err(UpdateRefusal::WouldShorten)
    );
    assert_eq!(
        protection(&*store, "dan", t0 + 3).excluded_until_ms,
        Some(t0 + 2 + 7 * day)
    );
    let forever = change(
        &*store,
        "dan",
        ProtectionUpdate::SelfExclusion { days: None },
        AuditActor::Player,
        t0 + 4,
    )
    .unwrap();
    assert_eq!(
        (forever.excluded_until_ms, forever.excluded_indefinitely),
        (None, true)
    );
    assert_eq!(
        sell_one(
            &*store,
            request("dan", Stake::ONE_EURO, "x"),
            t0 + 400 * day
        ),
        SaleOutcome::SelfExcluded { until_ms: None }
    );
    assert_eq!(
        change(
            &*store,
            "dan",
            ProtectionUpdate::SelfExclusion { days: Some(30) },
            AuditActor::Player,
            t0 + 5
        ),
        Err(UpdateRefusal::WouldShorten)
    );
    // The operator sets any end, or lifts it.
    let set = change(
        &*store,
        "dan",
        ProtectionUpdate::SetExclusion {
            until_ms: Some(t0 + HOUR_MS),
        },
        AuditActor::Operator,
        t0 + 6,
    )
    .unwrap();
    assert_eq!(
        (set.excluded_until_ms, set.excluded_indefinitely),
        (Some(t0 + HOUR_MS), false)
    );
    sold(sell_one(
        &*store,
        request("dan", Stake::ONE_EURO, "after-end"),
        t0 + HOUR_MS,
    ));
    change(
        &*store,
        "dan",
        ProtectionUpdate::SelfExclusion { days: Some(30) },
        AuditActor::Player,
        t0 + HOUR_MS,
    )
    .unwrap();
    let lifted = change(
        &*store,
        "dan",
        ProtectionUpdate::SetExclusion { until_ms: None },
        AuditActor::Operator,
        t0 + HOUR_MS + 1,
    )
    .unwrap();
    assert_eq!(
        (lifted.excluded_until_ms, lifted.excluded_indefinitely),
        (None, false)
    );
    sold(sell_one(
        &*store,
        request("dan", Stake::ONE_EURO, "lifted"),
        t0 + HOUR_MS + 2,
    ));
    let audit = store.protection_audit("dan").unwrap();
    let seen: Vec<_> = audit.iter().map(|e| (e.actor, e.new.clone())).collect();
    assert_eq!(
        seen,
        vec![
            (AuditActor::Operator, json!(null)),
            (AuditActor::Player, json!(t0 + HOUR_MS + 30 * day)),
            (AuditActor::Operator, json!(t0 + HOUR_MS)),
            (AuditActor::Player, json!("indefinite")),
            (AuditActor::Player, json!(t0 + 2 + 7 * day)),
            (AuditActor::Player, json!(t0 + day)),
        ]
    );
    assert!(audit
        .iter()
        .all(|e| e.change == ProtectionChange::Exclusion));
}

pub fn invalid_changes_change_nothing(backend: &impl Backend) {
    let store = backend.open();
    store.create_player("eve", PlayerKind::Operator, 0).unwrap();
    let t0 = START_MS;
    change(
        &*store,
        "eve",
        limits(Some(1_000), Some(500)),
        AuditActor::Player,
        t0,
    )
    .unwrap();
    let before = protection(&*store, "eve", t0);
    let audit = store.protection_audit("eve").unwrap();
    for bad in [
        limits(Some(0), None),
        limits(Some(100_000_001), Some(1)),
        limits(Some(10), Some(0)),
        ProtectionUpdate::SelfExclusion { days: Some(2) },
        ProtectionUpdate::SelfExclusion { days: Some(0) },
        ProtectionUpdate::RealityCheck { minutes: 20 },
        ProtectionUpdate::SetExclusion {
            until_ms: Some(u64::MAX),
        },
    ] {
        let refused = change(&*store, "eve", bad, AuditActor::Operator, t0 + 1);
        assert!(
            matches!(refused, Err(UpdateRefusal::Invalid(_))),
            "{bad:?}: {refused:?}"
        );
    }
    assert_eq!(
        change(
            &*store,
            "nobody",
            limits(Some(1), None),
            AuditActor::Operator,
            t0
        ),
        Err(UpdateRefusal::UnknownPlayer)
    );
    assert_eq!(store.protection("nobody", t0).unwrap(), None);
    assert_eq!(protection(&*store, "eve", t0 + 1), before);
    assert_eq!(store.protection_audit("eve").unwrap(), audit);
    let checked = change(
        &*store,
        "eve",
        ProtectionUpdate::RealityCheck { minutes: 15 },
        AuditActor::Player,
        t0 + 2,
    )
    .unwrap();
    assert_eq!(checked.reality_check_minutes, 15);
}

pub fn the_default_stake_limit_stays_with_each_new_real_money_player(backend: &impl Backend) {
    let store = backend.open();
    losing_block(&*store, 1, Stake::ONE_EURO, 10);
    insert(&*store, 2, Stake::ONE_EURO, PLAY, &[LOSE, LOSE, LOSE]);
    store.set_protection_defaults(ProtectionDefaults {
        weekly_stake_limit_cents: Some(100),
        reality_check_minutes: 30,
    });
    store
        .create_player("fay", PlayerKind::Operator, 1_000)
        .unwrap();
    store
        .create_player("demo-1", PlayerKind::Demo, 1_000)
        .unwrap();
    let t0 = START_MS;
    let p = protection(&*store, "fay", t0);
    assert_eq!(
        (p.weekly_stake_limit_cents, p.reality_check_minutes),
        (Some(100), 30)
    );
    sold(sell_one(&*store, request("fay", Stake::ONE_EURO, "a"), t0));
    assert!(matches!(
        sell_one(&*store, request("fay", Stake::ONE_EURO, "b"), t0),
        SaleOutcome::LimitReached(_)
    ));
    // Play money has no default limit.
    sold(sell_one(
        &*store,
        request("demo-1", Stake::ONE_EURO, "a"),
        t0,
    ));
    sold(sell_one(
        &*store,
        request("demo-1", Stake::ONE_EURO, "b"),
        t0,
    ));
    // A later default is not the player's: its limit was stored at its
    // first sale; its reality check follows the server's default.
    store.set_protection_defaults(ProtectionDefaults::default());
    let p = protection(&*store, "fay", t0);
    assert_eq!(
        (p.weekly_stake_limit_cents, p.reality_check_minutes),
        (Some(100), 60)
    );
    // Stored, it survives a reopen.
    let reopened = backend.open();
    assert_eq!(
        protection(&*reopened, "fay", t0).weekly_stake_limit_cents,
        Some(100)
    );
}
