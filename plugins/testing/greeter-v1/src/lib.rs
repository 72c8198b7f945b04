//! The `greeter` test module, version 1: swapped for the other version
//! under load by the plugin reload test.

const VERSION: &str = "v1";

include!("../../greeter/greeter.rs");
