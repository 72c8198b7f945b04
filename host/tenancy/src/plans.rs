//! The built-in plans and the modules they switch on.

use std::collections::BTreeMap;

/// Every module a plan can switch on. `api` gates the whole external API.
pub const MODULES: &[&str] = &["api", "contacts", "forms", "import", "shipping"];

#[derive(Debug)]
pub struct Plan {
    pub name: &'static str,
    pub display_name: &'static str,
    /// Modules this plan leaves off; every other module of [`MODULES`] is on.
    pub modules_off: &'static [&'static str],
    /// Most contacts an organization may hold; `None` is unlimited.
    pub contact_limit: Option<u64>,
}

pub const PLANS: &[Plan] = &[
    Plan { name: "free", display_name: "Free", modules_off: &["api", "shipping"], contact_limit: Some(100) },
    Plan { name: "pro", display_name: "Pro", modules_off: &[], contact_limit: Some(100_000) },
    Plan { name: "unlimited", display_name: "Unlimited", modules_off: &[], contact_limit: None },
];

pub const DEFAULT_PLAN: &str = "pro";

pub fn plan(name: &str) -> Option<&'static Plan> {
    PLANS.iter().find(|p| p.name == name)
}

impl Plan {
    /// The plan's own module switches.
    pub fn modules(&self) -> BTreeMap<String, bool> {
        MODULES.iter().map(|m| (m.to_string(), !self.modules_off.contains(m))).collect()
    }
}
