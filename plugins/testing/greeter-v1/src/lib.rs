//! The `greeter` test module, version 1: swapped for the other version
//! under load by the plugin reload test. Its body, shared with `greeter-v2`,
//! is `../greeter/greeter.rs`; this crate only sets the `VERSION` it answers.

const VERSION: &str = "v1";

include!("../../greeter/greeter.rs");
