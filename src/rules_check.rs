//! The server's published figures (`GET /api/config`) against the engine's:
//! the page shows the engine's paytable, odds, return and top prize, and
//! reports any figure the server states differently as a verification
//! failure instead of preferring either silently.

use crate::api::{Config, Odds, PrizeRow};
use eldorado_engine::prize_table::{max_win_cents, odds_fraction, rtp_basis_points, Rank, RANKS};
use eldorado_engine::Stake;

/// A published figure that disagrees with the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    Stakes,
    PrizeTable,
    Odds,
    Rtp,
    MaxWin,
}

/// The stakes of the rules, in cents (an array: no collecting code).
pub fn stakes() -> [u64; Stake::ALL.len()] {
    Stake::ALL.map(|s| s.cents())
}

/// The prize table of the rules, in the API's shape.
pub fn prize_rows() -> Vec<PrizeRow> {
    RANKS
        .iter()
        .map(|r| PrizeRow {
            rank: r.rank,
            multiple: u64::from(r.multiple),
            count: u64::from(r.count),
            direct: u64::from(r.direct),
            via_extras: u64::from(r.via_extras),
            decompositions: r
                .decompositions
                .iter()
                .map(|d| d.iter().map(|&a| u64::from(a)).collect())
                .collect(),
        })
        .collect()
}

/// Whether `table` is the rules' prize table, read in place: the page
/// builds no copy of it in the API's shape to compare.
fn prize_table_agrees(table: &[PrizeRow]) -> bool {
    table.len() == RANKS.len() && table.iter().zip(&RANKS).all(row_agrees)
}

fn row_agrees((row, rank): (&PrizeRow, &Rank)) -> bool {
    row.rank == rank.rank
        && row.multiple == u64::from(rank.multiple)
        && row.count == u64::from(rank.count)
        && row.direct == u64::from(rank.direct)
        && row.via_extras == u64::from(rank.via_extras)
        && row.decompositions.len() == rank.decompositions.len()
        && row
            .decompositions
            .iter()
            .zip(rank.decompositions)
            .all(|(ours, rules)| {
                ours.len() == rules.len()
                    && ours.iter().zip(*rules).all(|(&a, &b)| a == u64::from(b))
            })
}

/// One winning ticket in `tickets / winners`, from the rules.
pub fn odds() -> Odds {
    let (tickets, winners) = odds_fraction();
    Odds { tickets, winners }
}

/// The top prize of each stake, from the rules.
pub fn max_wins() -> [(u64, u64); Stake::ALL.len()] {
    Stake::ALL.map(|s| (s.cents(), max_win_cents(s)))
}

/// Every figure of `config` that the rules contradict, in display order.
pub fn mismatches(config: &Config) -> Vec<Figure> {
    let max_win_agrees = config.max_win_cents.len() == Stake::ALL.len()
        && Stake::ALL
            .iter()
            .all(|&stake| config.max_win_for(stake.cents()) == Some(max_win_cents(stake)));
    [
        (Figure::Stakes, config.stakes_cents == stakes()),
        (Figure::PrizeTable, prize_table_agrees(&config.prize_table)),
        (Figure::Odds, config.odds == odds()),
        (Figure::Rtp, config.rtp_basis_points == rtp_basis_points()),
        (Figure::MaxWin, max_win_agrees),
    ]
    .into_iter()
    .filter_map(|(figure, agrees)| (!agrees).then_some(figure))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    #[test]
    fn the_engines_own_figures_agree() {
        assert_eq!(
            mismatches(&fixtures::config(&fixtures::public_key_hex())),
            Vec::<Figure>::new()
        );
    }

    #[test]
    fn every_changed_figure_is_reported() {
        let mut config = fixtures::config(&fixtures::public_key_hex());
        config.prize_table[0].multiple = 8000;
        config.rtp_basis_points = 9500;
        assert_eq!(mismatches(&config), vec![Figure::PrizeTable, Figure::Rtp]);

        // Every field of every row counts, down to one line amount.
        let rows = prize_rows();
        assert!(prize_table_agrees(&rows));
        let changes: [fn(&mut PrizeRow); 8] = [
            |r| r.rank += 1,
            |r| r.count += 1,
            |r| r.direct += 1,
            |r| r.via_extras += 1,
            |r| r.decompositions.push(vec![1]),
            |r| r.decompositions[0].push(1),
            |r| r.decompositions[0][0] += 1,
            |r| r.multiple += 1,
        ];
        for (i, change) in changes.iter().enumerate() {
            let mut table = rows.clone();
            change(&mut table[i % rows.len()]);
            assert!(!prize_table_agrees(&table), "change {i}");
        }
        assert!(!prize_table_agrees(&rows[1..]));

        let mut config = fixtures::config(&fixtures::public_key_hex());
        config.odds.winners += 1;
        config.max_win_cents.insert("200".to_owned(), 1);
        config.stakes_cents.push(500);
        assert_eq!(
            mismatches(&config),
            vec![Figure::Stakes, Figure::Odds, Figure::MaxWin]
        );
    }
}
