//! The plugin contract, `crm:plugin`, across its versions.
//!
//! - [`Text`]: one text of the package (`wit/plugin.wit`, a published one in
//!   `compat/`, or what a component's binary spells), resolved.
//! - [`drift`]: the rule between two texts: what the newer one removed or
//!   changed, and what it added without `@since`.
//! - [`component`]: what a component was built against (read from its own
//!   types), and what of it this host's text does not have, for a refusal
//!   that names each interface, function or type that differs, with both
//!   versions.
//!
//! Today's text is `wit/plugin.wit`, compiled in. Used by the runtime's
//! loader and by the CI check of `compat/` (`tests/it/plugin_contract.rs`).
//! It knows no I/O and no wasmtime.

pub mod component;
pub mod drift;

use wit_parser::{PackageId, Resolve};

/// The text this host implements (`wit/plugin.wit`).
pub const TODAY: &str = include_str!("../../../wit/plugin.wit");

/// One text of `crm:plugin`, resolved, with the label its differences name
/// it by (`1.0.0`, `this host (crm:plugin@1.1.0)`).
pub struct Text {
    pub label: String,
    resolve: Resolve,
    package: PackageId,
}

impl Text {
    pub fn parse(label: &str, wit: &str) -> Result<Text, String> {
        let mut resolve = Resolve::default();
        let package = resolve.push_str(format!("{label}.wit"), wit).map_err(|e| format!("{label}: {e:#}"))?;
        Ok(Text { label: label.into(), resolve, package })
    }

    /// The text this host implements.
    pub fn today() -> Text {
        let text = Text::parse("wit/plugin.wit", TODAY).expect("wit/plugin.wit resolves (the build checked it)");
        Text { label: format!("this host (crm:plugin@{})", text.version()), ..text }
    }

    /// `1.1.0` of `package crm:plugin@1.1.0;`.
    pub fn version(&self) -> semver::Version {
        self.resolve.packages[self.package].name.version.clone().unwrap_or(semver::Version::new(0, 0, 0))
    }
}
