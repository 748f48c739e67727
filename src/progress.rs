//! Progress of long computations, reported through a sink the caller supplies: the binary draws
//! a bar on a terminal, a library user may log or ignore it. The library never draws anything.

/// A sink for progress.
pub trait Progress: Sync {
    /// Work of `total` steps starts, described by `what`.
    fn start(&self, what: &str, total: u64);
    /// One step is done.
    fn tick(&self);
    /// The work is done.
    fn finish(&self);
}

/// Progress that shows nothing.
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _: &str, _: u64) {}
    fn tick(&self) {}
    fn finish(&self) {}
}

/// Runs `work` as one piece of progress of `total` steps described by `what`: started before
/// it, finished after it however it returns, an early `?` included.
pub fn within<T>(progress: &dyn Progress, what: &str, total: u64, work: impl FnOnce() -> T) -> T {
    progress.start(what, total);
    let out = work();
    progress.finish();
    out
}
