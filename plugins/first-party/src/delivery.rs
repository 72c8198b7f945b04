//! How a webhook is delivered, as an automation's action and a conversation
//! stage's webhook both ask for it: at most `maxPerSecond` attempts a second
//! (1 to 1000), and `ordered` (one resource's events in the order they were
//! committed). Both optional; the host keeps the pace and the order.

use crm_sdk::events::DeliveryOptions;
use serde_json::{Map, Value};

pub const MAX_PER_SECOND: u32 = 1000;

/// The options in `object` under the keys `max_per_second` and `ordered`;
/// on a bad value, the key and why.
pub fn parse(
    object: &Map<String, Value>,
    max_per_second: &str,
    ordered: &str,
) -> Result<DeliveryOptions, (String, String)> {
    let pace = match object.get(max_per_second) {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) if n.as_u64().is_some_and(|n| (1..=u64::from(MAX_PER_SECOND)).contains(&n)) => {
            n.as_u64().map(|n| n as u32)
        }
        Some(_) => {
            return Err((max_per_second.into(), format!("must be a whole number from 1 to {MAX_PER_SECOND}")));
        }
    };
    let ordered_value = match object.get(ordered) {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err((ordered.into(), "must be true or false".into())),
    };
    Ok(DeliveryOptions { max_per_second: pace, ordered: ordered_value })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn options(v: Value) -> Result<(Option<u32>, bool), String> {
        let Value::Object(map) = v else { unreachable!() };
        parse(&map, "maxPerSecond", "ordered").map(|o| (o.max_per_second, o.ordered)).map_err(|(k, _)| k)
    }

    #[test]
    fn both_are_optional_and_bounded() {
        assert_eq!(options(json!({})), Ok((None, false)));
        assert_eq!(options(json!({ "maxPerSecond": 5, "ordered": true })), Ok((Some(5), true)));
        assert_eq!(options(json!({ "maxPerSecond": null, "ordered": null })), Ok((None, false)));
        for bad in [json!(0), json!(1001), json!(2.5), json!("5"), json!(-1)] {
            assert_eq!(options(json!({ "maxPerSecond": bad })), Err("maxPerSecond".into()), "{bad}");
        }
        assert_eq!(options(json!({ "ordered": "yes" })), Err("ordered".into()));
    }
}
