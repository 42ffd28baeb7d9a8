//! SPEC §4 and §5: every line against a table transcribed from the SPEC,
//! every allowed decomposition, every way a ticket can be wrong, and random
//! grids.

mod spec;

use eldorado_engine::grid::Line;
use eldorado_engine::line::{evaluate_line, LineError};
use eldorado_engine::ticket::{evaluate_grids, validate_ticket, Ticket, TicketError};
use eldorado_engine::{Award, Grid, LineOutcome, Salt, Symbol};
use proptest::prelude::*;
use spec::{every_line, judge_line, rank_of_lines, Verdict, LINE_TABLE, PRIZE_TABLE};

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

/// Lines paying each amount of SPEC §4, with and without the Chance, in
/// every combination that pays it (150 and 2 have two).
const LINES_PAYING: [(u32, &[&str]); 8] = [
    (7000, &["PPPPP", "PPPPM"]),
    (450, &["CCCCC", "CCCCM"]),
    (150, &["PPPPD", "PPPMD", "SSSSS", "SSSSM"]),
    (50, &["DDDDD", "DDDDM"]),
    (25, &["CCCCR", "CCCMR"]),
    (10, &["PPPRD", "PPMRD"]),
    (5, &["SSSSD", "SSSMD"]),
    (2, &["PPDSR", "PMDSR", "CCCRD", "CCMRD"]),
];
const LOSE_LINE: &str = "CSSDD";
const EXTRA_LINE: &str = "DDDDR";

fn lines_paying(amount: u32) -> &'static [&'static str] {
    LINES_PAYING
        .iter()
        .find(|(paid, _)| *paid == amount)
        .map(|(_, lines)| *lines)
        .unwrap()
}

/// Every way to pick one line for each amount.
fn realisations(amounts: &[u32]) -> Vec<Vec<&'static str>> {
    amounts.iter().fold(vec![vec![]], |partial, &amount| {
        partial
            .iter()
            .flat_map(|picked| {
                lines_paying(amount).iter().map(move |line| {
                    let mut next = picked.clone();
                    next.push(*line);
                    next
                })
            })
            .collect()
    })
}

/// A grid of the given lines, topped up with losing lines.
fn grid_of(lines: &[&str]) -> Grid {
    assert!(lines.len() <= 3);
    let mut rows: Vec<&str> = lines.to_vec();
    rows.resize(3, LOSE_LINE);
    grid(&rows.join("/"))
}

fn as_codes(text: &str) -> [u8; 5] {
    text.as_bytes().try_into().unwrap()
}

/// Compares the engine's verdict on one line with the SPEC's.
fn engine_agrees(codes: &[u8; 5]) -> Result<(), String> {
    let symbols: Vec<Symbol> = codes
        .iter()
        .map(|&c| Symbol::from_code(c).unwrap())
        .collect();
    let engine = evaluate_line(&symbols.try_into().unwrap());
    let spec = judge_line(codes);
    let agrees = match (&engine, &spec) {
        (Ok(LineOutcome::Lose), Verdict::Lose) => true,
        (
            Ok(LineOutcome::Win {
                combination,
                multiple,
            }),
            Verdict::Win {
                symbol,
                effective,
                multiple: expected,
            },
        ) => {
            combination.symbol.code() == *symbol
                && combination.effective == *effective
                && multiple == expected
        }
        (Ok(LineOutcome::Extra { combination }), Verdict::Extra { symbol, effective }) => {
            combination.symbol.code() == *symbol && combination.effective == *effective
        }
        (Err(LineError::SeveralChance(n)), Verdict::SeveralChance(m)) => n == m,
        // The SPEC does not say which pair to name; both named must combine.
        (Err(LineError::TwoCombinations(a, b)), Verdict::TwoCombinations(symbols)) => {
            a != b && symbols.contains(&a.code()) && symbols.contains(&b.code())
        }
        _ => false,
    };
    if agrees {
        Ok(())
    } else {
        Err(format!(
            "{}: engine {engine:?}, SPEC §4 {spec:?}",
            String::from_utf8_lossy(codes)
        ))
    }
}

/// All 7,776 lines of five cells over six symbols, against SPEC §4 as
/// transcribed in `spec/mod.rs`.
#[test]
fn every_possible_line_matches_the_spec_table() {
    let mut disagreements = Vec::new();
    let mut cells_reached = std::collections::HashSet::new();
    let mut lines = 0;
    for codes in every_line() {
        lines += 1;
        if let Err(e) = engine_agrees(&codes) {
            disagreements.push(e);
        }
        match judge_line(&codes) {
            Verdict::Win {
                symbol, effective, ..
            }
            | Verdict::Extra { symbol, effective } => {
                cells_reached.insert((symbol, effective));
            }
            _ => {}
        }
    }
    assert_eq!(lines, 7_776);
    assert!(
        disagreements.is_empty(),
        "{} lines differ, e.g. {:?}",
        disagreements.len(),
        &disagreements[..disagreements.len().min(10)]
    );
    // Each filled cell of the table is the verdict of at least one line, so
    // the comparison above covered the whole table.
    let filled: usize = LINE_TABLE
        .iter()
        .map(|(_, cells)| cells.iter().filter(|c| **c != spec::Cell::Dash).count())
        .sum();
    assert_eq!(cells_reached.len(), filled);
}

/// The hand-written line lists of this file pay what SPEC §4 says.
#[test]
fn the_sample_lines_pay_what_the_spec_says() {
    for (amount, lines) in LINES_PAYING {
        for line in lines {
            assert_eq!(judge_line(&as_codes(line)).win(), Some(amount), "{line}");
        }
    }
    assert_eq!(judge_line(&as_codes(LOSE_LINE)), Verdict::Lose);
    assert!(judge_line(&as_codes(EXTRA_LINE)).is_extra());
}

/// SPEC §2: each decomposition of each rank, realised by every combination
/// that pays its lines, on the main grid and spread over Extra grids.
#[test]
fn every_allowed_decomposition_is_accepted_on_the_main_grid_and_on_extra_grids() {
    let mut checked = 0;
    for (rank, prize, decompositions) in PRIZE_TABLE {
        for decomposition in decompositions {
            for lines in realisations(decomposition) {
                let extras = vec![EXTRA_LINE; lines.len()];
                let layouts: Vec<(&str, Vec<Grid>)> = vec![
                    ("main grid", vec![grid_of(&lines)]),
                    (
                        "one line per Extra grid",
                        std::iter::once(grid_of(&extras))
                            .chain(lines.iter().map(|line| grid_of(&[line])))
                            .collect(),
                    ),
                    (
                        "all lines on the last Extra grid",
                        std::iter::once(grid_of(&extras))
                            .chain((1..lines.len()).map(|_| grid_of(&[])))
                            .chain(std::iter::once(grid_of(&lines)))
                            .collect(),
                    ),
                ];
                for (layout, grids) in layouts {
                    let what = format!("rank {rank}, {lines:?}, {layout}");
                    let evaluation = evaluate_grids(100, &grids)
                        .unwrap_or_else(|e| panic!("{what}: refused: {e}"));
                    assert_eq!(evaluation.rank.map(|r| r.rank), Some(rank), "{what}");
                    assert_eq!(evaluation.prize_multiple, u64::from(prize), "{what}");
                    assert_eq!(evaluation.win_amounts(), decomposition.to_vec(), "{what}");
                    assert_eq!(usize::from(evaluation.extras), grids.len() - 1, "{what}");
                    checked += 1;
                }
            }
        }
    }
    // 132 realisations of the 15 decompositions (e.g. 4^3 for 150+150+150),
    // three layouts each: a shortfall means a case was skipped.
    assert_eq!(checked, 3 * 132);
}

/// Every other set of one to three winning lines is refused, whatever it
/// adds up to (150 + 2, 5 + 5 + 5, 2 + 2 + 2, ...).
#[test]
fn every_other_set_of_winning_lines_is_refused() {
    let amounts: Vec<u32> = LINES_PAYING.iter().map(|(a, _)| *a).collect();
    let mut sets: Vec<Vec<u32>> = Vec::new();
    // Largest first, like the SPEC's decompositions: each multiset once.
    for (i, &a) in amounts.iter().enumerate() {
        sets.push(vec![a]);
        for (j, &b) in amounts.iter().enumerate().skip(i) {
            sets.push(vec![a, b]);
            for &c in amounts.iter().skip(j) {
                sets.push(vec![a, b, c]);
            }
        }
    }
    assert_eq!(sets.len(), 8 + 36 + 120);
    let mut accepted = 0;
    for set in sets {
        let lines: Vec<&str> = set.iter().map(|&a| lines_paying(a)[0]).collect();
        let result = evaluate_grids(50, &[grid_of(&lines)]);
        match rank_of_lines(&set) {
            Some((rank, prize)) => {
                let evaluation = result.unwrap_or_else(|e| panic!("{set:?}: {e}"));
                assert_eq!(evaluation.rank.map(|r| r.rank), Some(rank), "{set:?}");
                assert_eq!(evaluation.prize_cents(), 50 * u64::from(prize), "{set:?}");
                accepted += 1;
            }
            None => assert_eq!(
                result,
                Err(TicketError::DecompositionNotAllowed { lines: set.clone() }),
                "{set:?}"
            ),
        }
    }
    // The 15 decompositions of SPEC §2 are the only sets accepted.
    let allowed: usize = PRIZE_TABLE.iter().map(|(_, _, d)| d.len()).sum();
    assert_eq!((accepted, allowed), (15, 15));
}

const STAKES: [u64; 3] = [50, 100, 200];

/// A line: uniformly random cells (mostly invalid), or a valid line, or a
/// losing one, so that many random grids also make valid tickets.
fn line_strategy() -> impl Strategy<Value = [u8; 5]> {
    let valid: Vec<[u8; 5]> = every_line().filter(|l| judge_line(l).is_valid()).collect();
    let losing: Vec<[u8; 5]> = every_line()
        .filter(|l| judge_line(l) == Verdict::Lose)
        .collect();
    prop_oneof![
        1 => prop::array::uniform5(prop::sample::select(b"PCSDMR".to_vec())),
        2 => prop::sample::select(valid),
        3 => prop::sample::select(losing),
    ]
}

fn grid_strategy() -> impl Strategy<Value = Grid> {
    prop::array::uniform3(line_strategy()).prop_map(|rows| {
        let codes: Vec<u8> = rows.concat();
        Grid::from_codes(&codes).unwrap()
    })
}

fn rows_of(grid: &Grid) -> Vec<[u8; 5]> {
    grid.rows()
        .iter()
        .map(|row| {
            let mut codes = [0u8; 5];
            for (cell, symbol) in codes.iter_mut().zip(row) {
                *cell = symbol.code();
            }
            codes
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4_000))]

    /// Random grids never panic the engine; an accepted ticket pays exactly
    /// the sum of its winning lines under SPEC §4, and a refusal names a
    /// fault the SPEC confirms.
    #[test]
    fn random_grids_pay_the_sum_of_their_winning_lines(
        stake in prop_oneof![4 => prop::sample::select(STAKES.to_vec()), 1 => any::<u64>()],
        grids in prop::collection::vec(grid_strategy(), 1..=4),
    ) {
        let verdicts: Vec<Vec<Verdict>> = grids
            .iter()
            .map(|g| rows_of(g).iter().map(judge_line).collect())
            .collect();
        let main_extras = verdicts[0].iter().filter(|v| v.is_extra()).count();
        let mut wins: Vec<u32> = verdicts.iter().flatten().filter_map(Verdict::win).collect();
        wins.sort_unstable_by(|a, b| b.cmp(a));
        let total: u64 = wins.iter().map(|&w| u64::from(w)).sum();
        match evaluate_grids(stake, &grids) {
            Ok(evaluation) => {
                prop_assert!(STAKES.contains(&stake));
                prop_assert!(verdicts.iter().flatten().all(Verdict::is_valid));
                prop_assert_eq!(evaluation.prize_multiple, total);
                prop_assert_eq!(evaluation.prize_cents(), total * stake);
                prop_assert_eq!(evaluation.win_amounts(), wins.clone());
                prop_assert_eq!(usize::from(evaluation.extras), main_extras);
                prop_assert_eq!(grids.len(), 1 + main_extras);
                prop_assert!(verdicts[1..].iter().flatten().all(|v| !v.is_extra()));
                for grid in &verdicts {
                    let has_win = grid.iter().any(|v| v.win().is_some());
                    prop_assert!(!(has_win && grid.iter().any(Verdict::is_extra)));
                }
                let expected_rank = if total == 0 { None } else { rank_of_lines(&wins) };
                prop_assert_eq!(total > 0, expected_rank.is_some());
                prop_assert_eq!(evaluation.rank.map(|r| (r.rank, r.multiple)), expected_rank);
            }
            Err(error) => {
                let justified = match &error {
                    TicketError::BadStake(s) => *s == stake && !STAKES.contains(&stake),
                    TicketError::SeveralChance { grid, row } => {
                        matches!(verdicts[*grid][*row], Verdict::SeveralChance(_))
                    }
                    TicketError::TwoCombinations { grid, row } => {
                        matches!(verdicts[*grid][*row], Verdict::TwoCombinations(_))
                    }
                    TicketError::WinsAndExtras { grid } => {
                        verdicts[*grid].iter().any(|v| v.win().is_some())
                            && verdicts[*grid].iter().any(Verdict::is_extra)
                    }
                    TicketError::ExtraLineOnExtraGrid { grid, row } => {
                        *grid > 0 && verdicts[*grid][*row].is_extra()
                    }
                    TicketError::WrongExtraGridCount { extra_lines, extra_grids } => {
                        usize::from(*extra_lines) == main_extras
                            && *extra_grids == grids.len() - 1
                            && main_extras != grids.len() - 1
                    }
                    TicketError::DecompositionNotAllowed { lines } => {
                        *lines == wins && rank_of_lines(&wins).is_none()
                    }
                    TicketError::NoGrid
                    | TicketError::ExtrasMismatch { .. }
                    | TicketError::PrizeMismatch { .. } => false,
                };
                prop_assert!(justified, "{:?} for {:?}", error, grids);
            }
        }
    }
}

/// The refused decomposition reads as the list's `{:?}` text, brackets and all.
#[test]
fn refused_decomposition_lists_its_lines_in_brackets() {
    for lines in [vec![], vec![2], vec![150, 2], vec![25, 10, 10]] {
        let error = TicketError::DecompositionNotAllowed {
            lines: lines.clone(),
        };
        assert_eq!(
            error.to_string(),
            format!(
                "winning lines {lines:?} (in stakes) are not an allowed decomposition of any rank"
            )
        );
    }
}
