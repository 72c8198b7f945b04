//! The rules of this product that more than one of its first-party
//! components needs, kept out of the SDK partners build against:
//!
//! - [`contact_body`]: the keys of a contact body and the bounds on custom
//!   properties, for the contacts module and the modules that build bodies
//!   (forms, import);
//! - [`pipeline`]: the default pipelines' stages and ids, for the modules
//!   that move deals (forms), react to a move (automations) or list
//!   pipelines (pipelines).

pub mod contact_body;
pub mod pipeline;
