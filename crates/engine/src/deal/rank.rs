//! The rule that turns a beacon value and a logged sale into a rank.

use crate::fixed_bytes::Hash;
use sha2::{Digest, Sha256};

/// Domain tag of the deal hash.
pub const DEAL_TAG: &[u8] = b"ELDORADO-DEAL-V1";

/// The rank, among `unsold` positions in ascending order, that the sale
/// whose log record hash is `sale_record` receives from the beacon value
/// `randomness`:
/// `SHA-256(DEAL_TAG ‖ randomness ‖ sale_record)`, read as a 256-bit
/// big-endian integer, modulo `unsold`.
///
/// The modulo's bias is below 2⁻²³⁰ for any block size the engine accepts,
/// so no rejection step is needed. `unsold` must not be zero.
pub fn deal_rank(randomness: &[u8; 32], sale_record: &Hash, unsold: u32) -> u32 {
    assert!(
        unsold > 0,
        "a sale is only dealt from a block with an unsold position"
    );
    let mut hasher = Sha256::new();
    hasher.update(DEAL_TAG);
    hasher.update(randomness);
    hasher.update(sale_record.0);
    let digest: [u8; 32] = hasher.finalize().into();
    let modulus = u64::from(unsold);
    let remainder = digest
        .iter()
        .fold(0u64, |acc, &byte| ((acc << 8) | u64::from(byte)) % modulus);
    u32::try_from(remainder).expect("a remainder is below its u32 modulus")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rank_is_the_digest_modulo_the_unsold_count() {
        let randomness = [7u8; 32];
        let sale = Hash([9u8; 32]);
        let mut hasher = Sha256::new();
        hasher.update(DEAL_TAG);
        hasher.update(randomness);
        hasher.update(sale.0);
        let digest: [u8; 32] = hasher.finalize().into();
        // With a power of two below 2^32 the remainder is the digest's
        // last bits, which the fold must agree with.
        let low = u32::from_be_bytes(digest[28..].try_into().unwrap());
        assert_eq!(deal_rank(&randomness, &sale, 1 << 16), low & 0xffff);
        assert_eq!(deal_rank(&randomness, &sale, 1), 0);
        // 2^32 - 5 is prime: the whole digest counts.
        let big = u32::MAX - 4;
        let expected = digest.iter().fold(0u128, |acc, &b| {
            ((acc << 8) | u128::from(b)) % u128::from(big)
        });
        assert_eq!(u128::from(deal_rank(&randomness, &sale, big)), expected);
    }

    #[test]
    fn another_beacon_value_or_sale_gives_another_rank() {
        let ranks: std::collections::HashSet<u32> = (0u8..32)
            .map(|i| deal_rank(&[i; 32], &Hash([1; 32]), 400_000))
            .chain((0u8..32).map(|i| deal_rank(&[1; 32], &Hash([i; 32]), 400_000)))
            .collect();
        assert!(ranks.len() > 60, "{} distinct ranks of 64", ranks.len());
    }
}
