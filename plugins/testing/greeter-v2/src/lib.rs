//! The `greeter` test module, version 2: swapped for the other version
//! under load by the plugin reload test.

const VERSION: &str = "v2";

include!("../../greeter/greeter.rs");
