//! Reports: pure functions from results to bytes. Nothing here touches the disk or a terminal.

pub mod fit;
pub mod interval;
pub mod plot;
pub mod sweep;
pub mod table;
pub mod validate;
pub mod validate_stencil;
