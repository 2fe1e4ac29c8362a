//! Pure decisions over plain data. Nothing in here touches the network, the database or the
//! terminal; the engine gathers the facts and carries out what these return.

pub mod backoff;
pub mod budget;
pub mod disposition;
pub mod merge;
pub mod pacing;
pub mod recap;
pub mod recheck;
pub mod selector;
pub mod stale;
pub mod sweep;
pub mod write;
