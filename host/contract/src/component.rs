//! What a component's binary was built against, read from its own types,
//! and what of it this host's text does not have.
//!
//! A component names each interface it imports and exports with its version
//! (`crm:plugin/store@1.0.0`) and carries their types: the functions it
//! calls, the ones it offers, and the records and variants they use. Read
//! back as a WIT package, that is compared with this host's text by the same
//! rule as two versions ([`crate::drift::conflicts`]), so a refusal names the
//! interface, the function or type, and both sides.

use wit_parser::decoding::{DecodedWasm, decode};

use crate::Text;
use crate::drift::conflicts;

/// The `crm:plugin` a component was built against, as far as it uses it:
/// none when the bytes are not a component or name no `crm:plugin`
/// interface.
pub fn built_against(bytes: &[u8]) -> Option<Text> {
    let DecodedWasm::Component(resolve, _) = decode(bytes).ok()? else { return None };
    let (package, name) =
        resolve.packages.iter().find(|(_, p)| p.name.namespace == "crm" && p.name.name == "plugin")?;
    let label = format!("the component (crm:plugin@{})", name.name.version.as_ref()?);
    Some(Text { label, package, resolve })
}

/// Each difference between what the component was built against and this
/// host's text, one line each; empty when there is none (a refusal then has
/// another cause).
pub fn mismatches(bytes: &[u8]) -> Vec<String> {
    let Some(component) = built_against(bytes) else { return Vec::new() };
    let host = Text::today();
    if component.version().major != host.version().major {
        return vec![format!("{} is another major version than {}", component.label, host.label)];
    }
    conflicts(&component, &host)
}
