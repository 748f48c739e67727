//! Warnings on stderr for inputs that are valid but probably not what was meant.

use super::interval::ModelArgs;

/// The checkpoint cost at or above this fraction of the (system) MTBF draws a warning: every
/// model here assumes a cost small against the MTBF, and a cost of hours against an MTBF of
/// seconds is most often an MTBF typed in hours without its unit (`--mtbf 24`).
pub const COST_WARNING_FRACTION: f64 = 0.1;

/// The warning for `model`'s inputs, if the cost is not small against the MTBF.
pub fn cost_against_mtbf(model: &ModelArgs) -> Option<String> {
    let (mtbf, cost) = (model.mtbf?, model.cost?);
    let system = mtbf / model.nodes.unwrap_or(1) as f64;
    (cost >= COST_WARNING_FRACTION * system).then(|| {
        format!(
            "warning: the checkpoint cost ({}) is not small against the system MTBF ({}): the \
             models assume it is, and the answer is mostly overhead (is the MTBF missing its \
             unit, e.g. `24h` rather than `24`?)",
            ckpt::units::format_duration(cost),
            ckpt::units::format_duration(system)
        )
    })
}
