//! Signs rounds the way a drand network of the `bls-unchained-g1-rfc9380`
//! scheme does: round `r`'s signature is `sk · H(SHA-256(u64be(r)))`, H
//! being RFC 9380's hash to G1 with drand's domain tag; the public key
//! `sk · g2`. The curve arithmetic is the `bls12_381` crate's; the engine
//! verifies with `drand-verify`, so signer and verifier are two separate
//! implementations of the scheme.

use bls12_381::hash_to_curve::{ExpandMsgXmd, HashToCurve};
use bls12_381::{G1Affine, G1Projective, G2Affine, Scalar};
use eldorado_engine::deal::{BEACON_KEY_LEN, BEACON_SIGNATURE_LEN};
use sha2::{Digest, Sha256, Sha512};

/// The domain separation tag of quicknet's signatures.
const DST: &[u8] = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_";

/// Derives the BLS secret from the key file's 32 bytes.
const KEY_TAG: &[u8] = b"ELDORADO-BEACON-KEY-V1";

pub struct Signer {
    secret: Scalar,
    public_key: [u8; BEACON_KEY_LEN],
}

impl Signer {
    /// The beacon of a key file's secret. The secret is hashed to 64 bytes
    /// and reduced, so that every 32-byte secret gives a uniform scalar.
    pub fn from_secret(secret: [u8; 32]) -> Signer {
        let wide: [u8; 64] = Sha512::new()
            .chain_update(KEY_TAG)
            .chain_update(secret)
            .finalize()
            .into();
        let secret = Scalar::from_bytes_wide(&wide);
        let public_key = G2Affine::from(G2Affine::generator() * secret).to_compressed();
        Signer { secret, public_key }
    }

    pub fn public_key(&self) -> [u8; BEACON_KEY_LEN] {
        self.public_key
    }

    pub fn sign(&self, round: u64) -> [u8; BEACON_SIGNATURE_LEN] {
        let message: [u8; 32] = Sha256::digest(round.to_be_bytes()).into();
        let point = <G1Projective as HashToCurve<ExpandMsgXmd<sha2_09::Sha256>>>::hash_to_curve(
            message, DST,
        );
        G1Affine::from(point * self.secret).to_compressed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use eldorado_engine::deal::{BeaconError, BeaconKey};

    #[test]
    fn the_secret_is_read_little_endian_as_the_protocol_says() {
        // docs/PROTOCOL.md §10, recomputed there with py_ecc.
        let key = hex::encode(Signer::from_secret([1; 32]).public_key());
        assert!(key.starts_with("89037a7984f492916439e9b1ce0e3087"), "{key}");
    }

    #[test]
    fn the_engine_verifies_what_the_signer_signs_and_nothing_else() {
        let signer = Signer::from_secret([3; 32]);
        let key = BeaconKey::from_bytes(&signer.public_key()).unwrap();
        let signature = signer.sign(42);
        let randomness = key.verify(42, &signature).unwrap();
        assert_eq!(randomness, <[u8; 32]>::from(Sha256::digest(signature)));
        assert_eq!(
            key.verify(43, &signature),
            Err(BeaconError::WrongSignature { round: 43 })
        );
        let other = Signer::from_secret([4; 32]);
        assert_ne!(other.public_key(), signer.public_key());
        assert!(key.verify(42, &other.sign(42)).is_err());
        // BLS signatures are unique: signing again gives the same bytes.
        assert_eq!(signer.sign(42), signature);
    }
}
