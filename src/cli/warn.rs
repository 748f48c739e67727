//! Warnings on stderr for inputs that are valid but probably not what was meant.

use super::interval::ModelArgs;
use super::simulate::{SimulateArgs, Simulator};

/// The checkpoint cost at or above this fraction of the (system) MTBF draws a warning: every
/// model here assumes a cost small against the MTBF, and a cost of hours against an MTBF of
/// seconds is most often an MTBF typed in hours without its unit (`--mtbf 24`).
pub const COST_WARNING_FRACTION: f64 = 0.1;

/// The warning for a checkpoint cost `cost` against the MTBF `mtbf` the failures strike at
/// (seconds), if the cost is not small against it.
pub fn cost_against(mtbf: f64, cost: f64) -> Option<String> {
    (mtbf.is_finite() && mtbf > 0.0 && cost >= COST_WARNING_FRACTION * mtbf).then(|| {
        format!(
            "warning: the checkpoint cost ({}) is not small against the system MTBF ({}): the \
             models assume it is, and the answer is mostly overhead (is the MTBF missing its \
             unit, e.g. `24h` rather than `24`?)",
            ckpt::units::format_duration(cost),
            ckpt::units::format_duration(mtbf)
        )
    })
}

/// The warning for the model flags of `interval`, `sweep` and `validate`: the system MTBF is
/// `--mtbf` (divided by `--nodes` when given), or `--node-mtbf / --nodes`.
pub fn cost_against_mtbf(model: &ModelArgs) -> Option<String> {
    let cost = model.cost?;
    let nodes = model.nodes.unwrap_or(1).max(1) as f64;
    let mtbf = model.mtbf.or(model.node_mtbf)?;
    cost_against(mtbf / nodes, cost)
}

/// The warning for `ckpt simulate periodic` and `replicated` (the MTBF a replicated run is
/// given is one host's: the one a unit is most often missing from). The cost is read in
/// seconds, as `interval` reads it, so that the same flags draw the same warning.
pub fn simulate_cost(args: &SimulateArgs) -> Option<String> {
    match &args.simulator {
        Simulator::Periodic(a) => {
            let nodes = a.nodes.unwrap_or(1).max(1) as f64;
            let mtbf = match (a.mtbf, a.node_mtbf) {
                (Some(m), _) => m,
                (None, Some(m)) => m / nodes,
                (None, None) => return None,
            };
            cost_against(mtbf, a.job.cost.seconds)
        }
        Simulator::Replicated(a) => cost_against(a.mtbf, a.job.cost.seconds),
        Simulator::Stencil(_) | Simulator::Multilevel(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warns_from_a_tenth_of_the_mtbf() {
        assert!(cost_against(86400.0, 300.0).is_none());
        assert!(cost_against(3000.0, 299.0).is_none());
        let w = cost_against(24.0, 300.0).unwrap();
        assert!(w.contains("5m 0s") && w.contains("24.0s"), "{w}");
        assert!(cost_against(f64::INFINITY, 300.0).is_none());
    }
}
