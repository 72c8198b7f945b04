//! The `greeter` test module, version 2: swapped for the other version
//! under load by the plugin reload test. Its body, shared with `greeter-v1`,
//! is `../greeter/greeter.rs`; this crate only sets the `VERSION` it answers.

const VERSION: &str = "v2";

include!("../../greeter/greeter.rs");
