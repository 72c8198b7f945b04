//! The default deal pipeline: the modules that move deals (forms) and those
//! that react to a move (automations) read its stages from here.

/// The stages of the default deal pipeline, in order.
pub const DEAL_STAGES: &[&str] = &["new", "qualified", "proposal", "won", "lost"];
