//! What the models take from the platform: the system MTBF of a set of nodes, and the cost of
//! one checkpoint from its parts. One home for both, so that `interval`, `sweep`, `validate`
//! and the simulators derive them the same way.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A system MTBF derived from `count` nodes of MTBF `node_mtbf_s` each.
///
/// ```
/// let n = ckpt::model::platform::Nodes { count: 4096, node_mtbf_s: 5.0 * 365.0 * 86400.0 };
/// assert!((n.system_mtbf() - 38496.09375).abs() < 1e-6);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Nodes {
    /// Number of nodes.
    pub count: u64,
    /// MTBF of one node (s).
    pub node_mtbf_s: f64,
}

impl Nodes {
    /// `node_mtbf / count`: with independent exponential nodes, the MTBF of the whole system
    /// (the rates add up).
    pub fn system_mtbf(&self) -> f64 {
        self.node_mtbf_s / self.count as f64
    }
}

/// A checkpoint cost that cannot be formed from the parts given.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum CostError {
    /// A size without the bandwidth to send it.
    #[error("a checkpoint size needs a bandwidth")]
    SizeWithoutBandwidth,
    /// A bandwidth without a size to send.
    #[error("a bandwidth needs a checkpoint size")]
    BandwidthWithoutSize,
    /// The upload alone takes longer than any duration a user may give (a bandwidth far too
    /// small for the size).
    #[error(
        "uploading {bytes:e} bytes at {bandwidth:e} B/s takes {}, beyond 500 years",
        crate::units::seconds_in_message(*upload_s)
    )]
    UploadTooLong {
        /// The checkpoint size (bytes).
        bytes: f64,
        /// The bandwidth (bytes per second).
        bandwidth: f64,
        /// The upload time it gives (s), possibly infinite.
        upload_s: f64,
    },
    /// The parts add up to more than any duration a user may give.
    #[error(
        "the parts add up to {}, beyond 500 years",
        crate::units::seconds_in_message(*total)
    )]
    TooLong {
        /// What they add up to (s).
        total: f64,
    },
    /// The parts do not add up to a positive, finite cost.
    #[error("the parts add up to {total} s, not a positive checkpoint cost")]
    NotPositive {
        /// What they add up to.
        total: f64,
    },
}

/// The parts of one checkpoint sent over a network (the volunteer-grid setting): create the
/// image, open the connection, upload it, wait for the acknowledgement.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct UploadCost {
    /// Time to create the checkpoint image (s).
    pub create_s: f64,
    /// Network latency (s).
    pub latency_s: f64,
    /// Size of the image (bytes), with `bandwidth`.
    pub bytes: Option<f64>,
    /// Upload bandwidth (bytes/s), with `bytes`.
    pub bandwidth: Option<f64>,
    /// Time to the server's acknowledgement (s).
    pub ack_s: f64,
}

impl UploadCost {
    /// `create + latency + bytes / bandwidth + ack`.
    ///
    /// ```
    /// use ckpt::model::platform::UploadCost;
    /// let c = UploadCost { bytes: Some(64e9), bandwidth: Some(2e9), ack_s: 1.0, ..UploadCost::default() };
    /// assert_eq!(c.total().unwrap(), 33.0);
    /// ```
    pub fn total(&self) -> Result<f64, CostError> {
        let upload = match (self.bytes, self.bandwidth) {
            (Some(b), Some(bw)) => {
                let upload_s = b / bw;
                if upload_s.is_nan() || upload_s > crate::units::MAX_DURATION_S {
                    return Err(CostError::UploadTooLong {
                        bytes: b,
                        bandwidth: bw,
                        upload_s,
                    });
                }
                upload_s
            }
            (None, None) => 0.0,
            (Some(_), None) => return Err(CostError::SizeWithoutBandwidth),
            (None, Some(_)) => return Err(CostError::BandwidthWithoutSize),
        };
        let total = self.create_s + self.latency_s + upload + self.ack_s;
        if !(total > 0.0 && total.is_finite()) {
            Err(CostError::NotPositive { total })
        } else if total > crate::units::MAX_DURATION_S {
            Err(CostError::TooLong { total })
        } else {
            Ok(total)
        }
    }
}
