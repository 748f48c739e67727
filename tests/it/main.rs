//! The integration tests, one binary: each module was once its own file under tests/, compiled
//! and linked against the whole crate on its own. `cargo test --test it MODULE::` runs one of
//! them. Tests run with the package root as the current folder, so the modules' relative paths
//! (data/...) are found as before.

mod common;

mod encoding;
mod finite_cli;
mod fit;
mod fuzz;
mod interval_cli;
mod models;
mod multilevel_cli;
mod properties;
mod renewal_allocation;
mod renewal_cli;
mod renewal_jobs;
mod robustness;
mod shard;
mod simulate_cli;
mod simulate_periodic;
mod simulate_replicated;
mod simulate_stencil;
mod stencil_reference;
mod sweep;
mod validate;
mod validate_allocation;
