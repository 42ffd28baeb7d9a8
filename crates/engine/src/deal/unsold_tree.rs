//! The unsold tree: a binary Merkle tree over a block's positions whose
//! every node also commits to how many unsold positions lie under it, so
//! that "position p is the r-th unsold one" has a proof of one sibling
//! per level.
//!
//! Shape: `depth` is the smallest d with 2^d ≥ the block's ticket count;
//! the tree is perfect, its 2^d leaves are the positions in ascending
//! order, and the leaves past the ticket count are padding that counts as
//! sold. Hashes (docs/PROTOCOL.md, "Fair dealing"):
//! - leaf: `SHA-256(0x00 ‖ UNSOLD_TAG ‖ count)`, count one byte (1 unsold,
//!   0 sold or padding);
//! - inner node: `SHA-256(0x01 ‖ UNSOLD_TAG ‖ u32be(left count) ‖
//!   u32be(right count) ‖ left hash ‖ right hash)`.
//!
//! A proof lists the siblings from the leaf's up to the root's children,
//! each with its count; the side of each follows from the position's bits.

use crate::fixed_bytes::Hash;
use sha2::{Digest, Sha256};

/// Domain tag of every node of the unsold tree.
pub const UNSOLD_TAG: &[u8] = b"ELDORADO-UNSOLD-V1";

/// The largest block the tree holds: 2^24 positions (a tree of 32 Mi
/// nodes). Blocks are 400,000 tickets.
pub const MAX_LEAVES: u32 = 1 << 24;

/// One node: its hash and the number of unsold positions under it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    pub hash: Hash,
    pub count: u32,
}

/// What a verified take proves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Taken {
    /// How many positions were unsold before the take.
    pub unsold: u32,
    /// The taken position's rank among them, in ascending order, from 0.
    pub rank: u32,
    /// The root after the position is sold.
    pub after: Node,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TakeError {
    #[error("a block of {leaves} tickets has no unsold tree (1 to 2^24 tickets)")]
    BadSize { leaves: u32 },
    #[error("position {position} is outside a block of {leaves} tickets")]
    OutOfRange { position: u32, leaves: u32 },
    #[error("position {position} is already sold")]
    AlreadySold { position: u32 },
    #[error("the proof has {found} siblings where the tree needs {expected}")]
    WrongLength { expected: usize, found: usize },
    #[error("a sibling's count does not fit its level")]
    BadCount,
    #[error("the proof does not lead to the root before the take")]
    RootMismatch,
}

fn unsold_leaf() -> Node {
    Node {
        hash: leaf(1),
        count: 1,
    }
}

/// A sold position and a padding one are the same leaf.
fn padding_leaf() -> Node {
    Node {
        hash: leaf(0),
        count: 0,
    }
}

fn leaf(count: u8) -> Hash {
    let mut hasher = Sha256::new();
    hasher.update([0x00]);
    hasher.update(UNSOLD_TAG);
    hasher.update([count]);
    Hash(hasher.finalize().into())
}

fn parent(left: &Node, right: &Node) -> Node {
    let mut hasher = Sha256::new();
    hasher.update([0x01]);
    hasher.update(UNSOLD_TAG);
    hasher.update(left.count.to_be_bytes());
    hasher.update(right.count.to_be_bytes());
    hasher.update(left.hash.0);
    hasher.update(right.hash.0);
    Node {
        hash: Hash(hasher.finalize().into()),
        count: left.count + right.count,
    }
}

fn depth_for(leaves: u32) -> Result<u32, TakeError> {
    if leaves == 0 || leaves > MAX_LEAVES {
        return Err(TakeError::BadSize { leaves });
    }
    Ok(leaves.next_power_of_two().trailing_zeros())
}

/// The whole tree of one block, as the dealer keeps it.
#[derive(Clone, Debug)]
pub struct UnsoldTree {
    leaves: u32,
    depth: u32,
    /// Heap order: the root at 1, the children of `i` at `2i` and `2i+1`,
    /// the leaves at `2^depth..2^(depth+1)`; index 0 is unused.
    nodes: Vec<Node>,
}

impl UnsoldTree {
    /// The tree of a block of `leaves` tickets, all unsold.
    pub fn new(leaves: u32) -> Result<UnsoldTree, TakeError> {
        UnsoldTree::with_sold(leaves, [])
    }

    /// The tree of a block of `leaves` tickets once `sold` are sold (in any
    /// order): the dealer's tree after a restart, built in one pass rather
    /// than one take per sale.
    pub fn with_sold(
        leaves: u32,
        sold: impl IntoIterator<Item = u32>,
    ) -> Result<UnsoldTree, TakeError> {
        let depth = depth_for(leaves)?;
        let width = 1usize << depth;
        let mut nodes = vec![padding_leaf(); 2 * width];
        nodes[width..width + leaves as usize].fill(unsold_leaf());
        for position in sold {
            if position >= leaves {
                return Err(TakeError::OutOfRange { position, leaves });
            }
            let leaf = &mut nodes[width + position as usize];
            if leaf.count == 0 {
                return Err(TakeError::AlreadySold { position });
            }
            *leaf = padding_leaf();
        }
        // Whole levels are copies of one node but for the one straddling
        // the end of the block: remember the last pair hashed.
        let mut last: Option<((Node, Node), Node)> = None;
        for i in (1..width).rev() {
            let pair = (nodes[2 * i], nodes[2 * i + 1]);
            let node = match last {
                Some((seen, node)) if seen == pair => node,
                _ => parent(&pair.0, &pair.1),
            };
            last = Some((pair, node));
            nodes[i] = node;
        }
        Ok(UnsoldTree {
            leaves,
            depth,
            nodes,
        })
    }

    /// The root of a block of `leaves` tickets before its first deal,
    /// which anyone can compute from the ticket count alone: one hash per
    /// level for its whole subtrees and one per level on the path along the
    /// block's end, without the tree (a verifier need not hold 2^20 nodes).
    pub fn initial_root(leaves: u32) -> Result<Node, TakeError> {
        let depth = depth_for(leaves)?;
        // `whole[k]`: a subtree of 2^k unsold positions; `empty[k]`: of 2^k
        // padding ones.
        let (mut whole, mut empty) = (vec![unsold_leaf()], vec![padding_leaf()]);
        for k in 1..=depth as usize {
            whole.push(parent(&whole[k - 1], &whole[k - 1]));
            empty.push(parent(&empty[k - 1], &empty[k - 1]));
        }
        if leaves == 1 << depth {
            return Ok(whole[depth as usize]);
        }
        // Up the path of position `leaves`, the first padding one: every
        // sibling on its left is whole, every one on its right empty.
        let mut node = empty[0];
        for k in 0..depth as usize {
            node = if leaves >> k & 1 == 1 {
                parent(&whole[k], &node)
            } else {
                parent(&node, &empty[k])
            };
        }
        Ok(node)
    }

    pub fn leaves(&self) -> u32 {
        self.leaves
    }

    pub fn root(&self) -> Node {
        self.nodes[1]
    }

    pub fn unsold(&self) -> u32 {
        self.root().count
    }

    fn leaf_index(&self, position: u32) -> Result<usize, TakeError> {
        if position >= self.leaves {
            return Err(TakeError::OutOfRange {
                position,
                leaves: self.leaves,
            });
        }
        Ok((1usize << self.depth) + position as usize)
    }

    pub fn is_unsold(&self, position: u32) -> bool {
        self.leaf_index(position)
            .is_ok_and(|index| self.nodes[index].count == 1)
    }

    /// The position of the `rank`-th unsold position (from 0), if there
    /// are that many.
    pub fn select(&self, mut rank: u32) -> Option<u32> {
        if rank >= self.unsold() {
            return None;
        }
        let mut index = 1;
        while index < self.nodes.len() / 2 {
            let left = self.nodes[2 * index].count;
            index = if rank < left {
                2 * index
            } else {
                rank -= left;
                2 * index + 1
            };
        }
        Some((index - self.nodes.len() / 2) as u32)
    }

    /// The siblings of `position`'s path, leaf level first.
    pub fn prove(&self, position: u32) -> Result<Vec<Node>, TakeError> {
        let mut index = self.leaf_index(position)?;
        let mut siblings = Vec::with_capacity(self.depth as usize);
        while index > 1 {
            siblings.push(self.nodes[index ^ 1]);
            index /= 2;
        }
        Ok(siblings)
    }

    /// Sells `position`: returns its proof against the root before, and
    /// what that proof verifies to.
    pub fn take(&mut self, position: u32) -> Result<(Vec<Node>, Taken), TakeError> {
        let mut index = self.leaf_index(position)?;
        if self.nodes[index].count == 0 {
            return Err(TakeError::AlreadySold { position });
        }
        let siblings = self.prove(position)?;
        let before = self.root();
        self.nodes[index] = padding_leaf();
        let mut rank = 0;
        while index > 1 {
            if index % 2 == 1 {
                rank += self.nodes[index - 1].count;
            }
            index /= 2;
            self.nodes[index] = parent(&self.nodes[2 * index], &self.nodes[2 * index + 1]);
        }
        let taken = Taken {
            unsold: before.count,
            rank,
            after: self.root(),
        };
        Ok((siblings, taken))
    }
}

/// Checks that `position` was unsold in the tree of a block of `leaves`
/// tickets whose root was `before`, and returns its rank, the unsold count
/// and the root once it is sold. Needs nothing but the proof.
pub fn verify_take(
    before: &Hash,
    leaves: u32,
    position: u32,
    siblings: &[Node],
) -> Result<Taken, TakeError> {
    let depth = depth_for(leaves)?;
    if position >= leaves {
        return Err(TakeError::OutOfRange { position, leaves });
    }
    if siblings.len() != depth as usize {
        return Err(TakeError::WrongLength {
            expected: depth as usize,
            found: siblings.len(),
        });
    }
    let mut unsold_path = unsold_leaf();
    let mut sold_path = padding_leaf();
    let mut rank = 0u32;
    for (level, sibling) in siblings.iter().enumerate() {
        if sibling.count > 1 << level {
            return Err(TakeError::BadCount);
        }
        if position >> level & 1 == 1 {
            rank += sibling.count;
            unsold_path = parent(sibling, &unsold_path);
            sold_path = parent(sibling, &sold_path);
        } else {
            unsold_path = parent(&unsold_path, sibling);
            sold_path = parent(&sold_path, sibling);
        }
    }
    if unsold_path.hash != *before {
        return Err(TakeError::RootMismatch);
    }
    Ok(Taken {
        unsold: unsold_path.count,
        rank,
        after: sold_path,
    })
}
