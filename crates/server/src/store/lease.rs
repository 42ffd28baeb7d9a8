//! What a store shared by several server processes must coordinate beyond
//! single transactions: who generates the next blocks, and who runs the
//! public log's sequencer.

/// A right held by one process of a deployment at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LeaseKind {
    /// Generating and storing blocks: two servers never generate the same
    /// block id, nor more blocks than the supply needs.
    Generation,
    /// Running the public log's sequencer on its interval. Without it every
    /// server reads, signs and hashes the same unlogged sales each interval
    /// and all but one throw the work away (correct, but paid in CPU).
    Sequencing,
}

/// What keeps a lease held; dropping it gives the lease back.
pub trait Holding: Send {
    /// Whether the lease is still held: a lock lives only as long as the
    /// database session that took it (a failover ends that session).
    fn still_held(&mut self) -> bool {
        true
    }
}

impl Holding for () {}

/// A right of [`LeaseKind`], held while this value lives.
pub struct Lease {
    held: Box<dyn Holding>,
}

impl Lease {
    /// A lease that lives as long as `held` (e.g. a connection holding a lock).
    pub fn new(held: impl Holding + 'static) -> Lease {
        Lease {
            held: Box::new(held),
        }
    }

    /// The lease of a backend used by one process only: nothing to hold.
    pub fn local() -> Lease {
        Lease::new(())
    }

    /// See [`Holding::still_held`].
    pub fn still_held(&mut self) -> bool {
        self.held.still_held()
    }
}
