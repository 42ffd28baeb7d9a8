//! What a store shared by several server processes must coordinate beyond
//! single transactions: who generates the next blocks.

/// The right to generate and store blocks, held by one process of a
/// deployment at a time (so that two servers never generate the same
/// block id, nor more blocks than the supply needs). Dropping it releases
/// the right.
pub struct GenerationLease {
    _held: Box<dyn Send>,
}

impl GenerationLease {
    /// A lease that lives as long as `held` (e.g. a connection holding a lock).
    pub fn new(held: impl Send + 'static) -> GenerationLease {
        GenerationLease {
            _held: Box::new(held),
        }
    }

    /// The lease of a backend used by one process only: nothing to hold.
    pub fn local() -> GenerationLease {
        GenerationLease::new(())
    }
}
