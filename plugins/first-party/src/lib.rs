//! This product's own rules and machinery, kept out of the SDK partners
//! build against:
//!
//! - [`contact_body`]: the keys of a contact body, the names people give them
//!   (`correo`, `celular`...) and the bounds on custom properties, for the
//!   contacts module and the modules that build bodies (forms, import);
//! - [`delivery`]: a webhook's pace and order, as automations' actions and
//!   conversation stages ask for them;
//! - [`pipeline`]: the default pipelines' stages and ids, for the modules
//!   that move deals (forms), react to a move (automations) or list
//!   pipelines (pipelines);
//! - [`raw_text`]: a filter's necessary test on a record's stored JSON
//!   bytes, so that the contacts module's scans decode only the records
//!   that may match, and the folding its search and filters compare through.

pub mod contact_body;
pub mod delivery;
pub mod pipeline;
pub mod raw_text;
