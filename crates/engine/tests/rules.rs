//! SPEC §4 and §5: every row of the line table, and every way a ticket can be wrong.

use eldorado_engine::grid::Line;
use eldorado_engine::line::{evaluate_line, LineError};
use eldorado_engine::ticket::{evaluate_grids, validate_ticket, Ticket, TicketError};
use eldorado_engine::{Award, Grid, LineOutcome, Salt, Symbol};

fn line(text: &str) -> Line {
    let symbols: Vec<Symbol> = text
        .bytes()
        .map(|b| Symbol::from_code(b).unwrap())
        .collect();
    symbols.try_into().unwrap()
}

fn award(text: &str) -> Option<Award> {
    match evaluate_line(&line(text)).unwrap_or_else(|e| panic!("{text}: {e}")) {
        LineOutcome::Lose => None,
        LineOutcome::Win { multiple, .. } => Some(Award::Win(multiple)),
        LineOutcome::Extra { .. } => Some(Award::Extra),
    }
}

/// SPEC §4, each row: the combination written plainly and with one Chance.
#[test]
fn every_row_of_the_line_table() {
    use Award::{Extra, Win};
    let table: &[(&str, &str, Award)] = &[
        ("PPPPP", "PPPPM", Win(7000)),
        ("CCCCC", "CMCCC", Win(450)),
        ("SSSSS", "SSMSS", Win(150)),
        ("DDDDD", "DDDMD", Win(50)),
        ("RRRRR", "RRRRM", Extra),
        ("PPPPD", "PPPMD", Win(150)),
        ("CCCCR", "CCMCR", Win(25)),
        ("SSSSD", "MSSSR", Win(5)),
        ("DDDDR", "DDMDR", Extra),
        ("PPPRD", "PPMRD", Win(10)),
        ("CCCRD", "CCMRD", Win(2)),
        ("SSSDR", "SSMDR", Extra),
        ("PPDSR", "PMDSR", Win(2)),
        ("CCDSR", "CMDSR", Extra),
        ("PDSRR", "PDSRR", Extra),
    ];
    for (plain, with_chance, expected) in table {
        assert_eq!(award(plain), Some(*expected), "{plain}");
        assert_eq!(award(with_chance), Some(*expected), "{with_chance}");
    }
}

#[test]
fn lines_below_every_threshold_lose() {
    for text in [
        "CSSDD", "DDDRR", "RRRRS", "MSDDR", "MRRRS", "SSDDD", "CSDRR",
    ] {
        assert_eq!(award(text), None, "{text}");
    }
}

#[test]
fn the_chance_never_stands_alone_nor_makes_a_lone_pyramid_an_extra() {
    // M with one pyramid is two pyramids (a win), never an Extra.
    assert_eq!(award("PMDSR"), Some(Award::Win(2)));
    // M with three perroquets and a dague: no combination at all.
    assert_eq!(award("MRRRD"), None);
}

#[test]
fn invalid_lines_are_rejected_with_their_reason() {
    assert_eq!(
        evaluate_line(&line("MMSDR")),
        Err(LineError::SeveralChance(2))
    );
    assert_eq!(
        evaluate_line(&line("PPPMM")),
        Err(LineError::SeveralChance(2))
    );
    assert_eq!(
        evaluate_line(&line("PPCCD")),
        Err(LineError::TwoCombinations(Symbol::Pyramide, Symbol::Coffre))
    );
    assert_eq!(
        evaluate_line(&line("PMCCD")),
        Err(LineError::TwoCombinations(Symbol::Pyramide, Symbol::Coffre))
    );
    // A lone P is an Extra, so P beside CC is two combinations too.
    assert!(matches!(
        evaluate_line(&line("PCCDS")),
        Err(LineError::TwoCombinations(..))
    ));
    // CM + SS: C e=2 (Extra) and S e=3 (Extra).
    assert!(matches!(
        evaluate_line(&line("CMSSD")),
        Err(LineError::TwoCombinations(..))
    ));
}

fn grid(text: &str) -> Grid {
    text.parse().unwrap()
}

fn ticket(stake_cents: u64, grids: &[&str], prize_cents: u64, extras: u8) -> Ticket {
    Ticket {
        position: 0,
        stake_cents,
        grids: grids.iter().map(|g| grid(g)).collect(),
        prize_cents,
        extras,
        salt: Salt([7; 16]),
    }
}

#[test]
fn valid_tickets_pay_their_lines() {
    // Direct top prize at 2 €.
    let t = ticket(200, &["PPPPM/CSSDD/DDDRR"], 1_400_000, 0);
    let e = validate_ticket(&t).unwrap();
    assert_eq!(e.rank.unwrap().rank, 1);
    assert!(!e.wins_via_extras());
    // 450 as three lines of 150: P e=4 and S e=5 both pay 150.
    let t = ticket(100, &["PPPPD/SSSSS/SSSSM"], 45_000, 0);
    assert_eq!(validate_ticket(&t).unwrap().rank.unwrap().rank, 2);
    // 7 = 5 + 2, spread over two Extra grids.
    let t = ticket(
        50,
        &[
            "PDSRR/RRRRR/CSSDD",
            "SSSSD/CSSDD/DDDRR",
            "CSSDD/PPDSR/DDDRR",
        ],
        350,
        2,
    );
    let e = validate_ticket(&t).unwrap();
    assert_eq!(
        (e.rank.unwrap().rank, e.extras, e.prize_cents()),
        (7, 2, 350)
    );
    assert!(e.wins_via_extras());
    // A teaser: one Extra, nothing won.
    let t = ticket(100, &["CSSDD/DDDDR/CSSDD", "CSSDD/CSSDD/DDDRR"], 0, 1);
    assert_eq!(validate_ticket(&t).unwrap().rank, None);
}

#[test]
fn each_way_a_ticket_can_be_wrong_has_its_reason() {
    let cases: Vec<(Ticket, TicketError)> = vec![
        (
            ticket(70, &["CSSDD/CSSDD/CSSDD"], 0, 0),
            TicketError::BadStake(70),
        ),
        (
            Ticket {
                grids: vec![],
                ..ticket(100, &[LOSE_GRID], 0, 0)
            },
            TicketError::NoGrid,
        ),
        (
            ticket(100, &["MMSDR/CSSDD/CSSDD"], 0, 0),
            TicketError::SeveralChance { grid: 0, row: 0 },
        ),
        (
            ticket(100, &["CSSDD/PPCCD/CSSDD"], 0, 0),
            TicketError::TwoCombinations { grid: 0, row: 1 },
        ),
        (
            ticket(100, &["PPDSR/RRRRR/CSSDD", LOSE_GRID], 200, 1),
            TicketError::WinsAndExtras { grid: 0 },
        ),
        (
            ticket(100, &["RRRRR/CSSDD/CSSDD", "CSSDD/CSSDD/DDDDR"], 0, 1),
            TicketError::ExtraLineOnExtraGrid { grid: 1, row: 2 },
        ),
        (
            ticket(100, &["RRRRR/CSSDD/CSSDD"], 0, 1),
            TicketError::WrongExtraGridCount {
                extra_lines: 1,
                extra_grids: 0,
            },
        ),
        (
            ticket(100, &[LOSE_GRID, LOSE_GRID], 0, 0),
            TicketError::WrongExtraGridCount {
                extra_lines: 0,
                extra_grids: 1,
            },
        ),
        (
            ticket(100, &["RRRRR/CSSDD/CSSDD", LOSE_GRID], 0, 0),
            TicketError::ExtrasMismatch {
                claimed: 0,
                actual: 1,
            },
        ),
        (
            ticket(100, &["PPDSR/CSSDD/CSSDD"], 300, 0),
            TicketError::PrizeMismatch {
                claimed_cents: 300,
                lines_cents: 200,
            },
        ),
        (
            ticket(100, &["PPDSR/PPDSR/PPDSR"], 600, 0),
            TicketError::DecompositionNotAllowed {
                lines: vec![2, 2, 2],
            },
        ),
        // 10 = 5 + 5 is allowed, 10 = 2 + 2 + ... is not; 150 + 2 is no rank at all.
        (
            ticket(100, &["PPPPD/PPDSR/CSSDD"], 15_200, 0),
            TicketError::DecompositionNotAllowed {
                lines: vec![150, 2],
            },
        ),
        // 50 as 25 + 25 is allowed but 50 as 10 + 10 + ... no: 10+10+25 = 45 is not a prize.
        (
            ticket(100, &["PPPRD/PPPRD/CCCCR"], 4_500, 0),
            TicketError::DecompositionNotAllowed {
                lines: vec![25, 10, 10],
            },
        ),
    ];
    for (ticket, expected) in cases {
        assert_eq!(
            validate_ticket(&ticket),
            Err(expected.clone()),
            "{:?}",
            ticket.grids
        );
    }
}

const LOSE_GRID: &str = "CSSDD/DDDRR/RRRRS";

#[test]
fn every_allowed_decomposition_is_accepted_and_no_other_sum() {
    // 10 = 5 + 5 (rank 6) and 25 = 10 + 10 + 5 (rank 5).
    assert_eq!(
        evaluate_grids(100, &[grid("SSSSD/SSSSR/CSSDD")])
            .unwrap()
            .prize_multiple,
        10
    );
    assert_eq!(
        evaluate_grids(100, &[grid("PPPRD/PPPRD/SSSSD")])
            .unwrap()
            .prize_multiple,
        25
    );
    // 5 + 5 + 5 = 15 is no rank.
    assert!(matches!(
        evaluate_grids(100, &[grid("SSSSD/SSSSR/SSSSD")]),
        Err(TicketError::DecompositionNotAllowed { .. })
    ));
}
