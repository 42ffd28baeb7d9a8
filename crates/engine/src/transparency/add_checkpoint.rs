//! The body of C2SP tlog-witness's `add-checkpoint` (a log pushing a
//! checkpoint to a witness): an `old <size>` line, the consistency proof
//! from that size, one base64 hash per line, an empty line, then the
//! checkpoint as a signed note. Both sides of the push use these.

use crate::fixed_bytes::Hash;
use base64::prelude::{Engine, BASE64_STANDARD};

/// At most this many proof lines (the protocol's limit).
pub const MAX_PROOF_LINES: usize = 63;

/// The request body pushing `note`, consistent with the witness's
/// `old` size by `proof`.
pub fn add_checkpoint_body(old: u64, proof: &[Hash], note: &str) -> String {
    let mut body = format!("old {old}\n");
    for hash in proof {
        body.push_str(&BASE64_STANDARD.encode(hash.0));
        body.push('\n');
    }
    body.push('\n');
    body.push_str(note);
    body
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AddCheckpointError {
    #[error("the body does not begin with an `old <size>` line")]
    OldSize,
    #[error("a consistency proof line is not one base64 hash")]
    ProofLine,
    #[error("more than {MAX_PROOF_LINES} proof lines")]
    TooLong,
    #[error("no empty line before the checkpoint")]
    NoCheckpoint,
}

/// What a push says: the old size, the proof, and the checkpoint's note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddCheckpoint<'a> {
    pub old: u64,
    pub proof: Vec<Hash>,
    pub note: &'a str,
}

/// Reads an `add-checkpoint` body.
pub fn parse_add_checkpoint(body: &str) -> Result<AddCheckpoint<'_>, AddCheckpointError> {
    let (first, mut rest) = body.split_once('\n').ok_or(AddCheckpointError::OldSize)?;
    let old = first
        .strip_prefix("old ")
        .filter(|n| n == &"0" || (!n.starts_with('0') && n.bytes().all(|b| b.is_ascii_digit())))
        .and_then(|n| n.parse().ok())
        .ok_or(AddCheckpointError::OldSize)?;
    let mut proof = Vec::new();
    loop {
        let (line, after) = rest
            .split_once('\n')
            .ok_or(AddCheckpointError::NoCheckpoint)?;
        rest = after;
        if line.is_empty() {
            break;
        }
        if proof.len() == MAX_PROOF_LINES {
            return Err(AddCheckpointError::TooLong);
        }
        let bytes: [u8; 32] = BASE64_STANDARD
            .decode(line)
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or(AddCheckpointError::ProofLine)?;
        proof.push(Hash(bytes));
    }
    Ok(AddCheckpoint {
        old,
        proof,
        note: rest,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE: &str = "example.com/log\n3\nAAAA\n\n— example.com/log sig\n";

    #[test]
    fn a_body_reads_back_as_written() {
        let proof = [Hash([1; 32]), Hash([2; 32])];
        let body = add_checkpoint_body(20, &proof, NOTE);
        assert!(body.starts_with("old 20\nAQEB"));
        assert_eq!(
            parse_add_checkpoint(&body),
            Ok(AddCheckpoint {
                old: 20,
                proof: proof.to_vec(),
                note: NOTE,
            })
        );
        let empty = add_checkpoint_body(0, &[], NOTE);
        assert_eq!(empty, format!("old 0\n\n{NOTE}"));
        assert_eq!(parse_add_checkpoint(&empty).unwrap().note, NOTE);
    }

    #[test]
    fn a_malformed_body_is_refused() {
        use AddCheckpointError::*;
        for (body, error) in [
            ("", OldSize),
            ("old 01\n\n", OldSize),
            ("old -1\n\n", OldSize),
            ("new 1\n\n", OldSize),
            ("old 1\nnot base64!\n\n", ProofLine),
            ("old 1\nAQEB\n\n", ProofLine),
            ("old 1\nno empty line", NoCheckpoint),
        ] {
            assert_eq!(parse_add_checkpoint(body), Err(error), "{body:?}");
        }
        let long = add_checkpoint_body(1, &[Hash([0; 32]); 64], NOTE);
        assert_eq!(parse_add_checkpoint(&long), Err(TooLong));
    }
}
