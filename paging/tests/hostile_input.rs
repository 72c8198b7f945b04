//! Property tests: any `page` and `limit` a query sends is a page within
//! bounds or a refusal that names its field; never a panic.

use crm_hostile_text::{around, config, text};
use crm_paging::{MAX_PAGE, Paging};
use proptest::prelude::*;

/// A query value: a number as sent (signs, huge ones), one with hostile
/// characters in it (`٣`, `３`, a space), or anything.
fn value() -> impl Strategy<Value = Option<String>> {
    let number = prop_oneof![any::<i64>().prop_map(|n| n.to_string()), "[+-]?[0-9]{1,60}".prop_map(String::from),];
    proptest::option::of(prop_oneof![3 => number.clone(), 2 => around(number), 1 => text(20)])
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_page_is_in_bounds_or_refused_by_field(page in value(), limit in value(), default in 1..200usize, max in 1..2000usize) {
        match Paging::parse(page.as_deref(), limit.as_deref(), default, max) {
            Ok(p) => {
                prop_assert!((1..=MAX_PAGE).contains(&p.page));
                prop_assert!(limit.is_none() || (1..=max).contains(&p.limit));
                prop_assert!(p.offset() <= (MAX_PAGE - 1) * max as u64);
            }
            Err(refused) => {
                prop_assert!(["page", "limit"].contains(&refused.field));
                prop_assert!(refused.message.starts_with(refused.field));
            }
        }
        // Whatever is sent, only ASCII digits after one sign are a number.
        let accepted = |v: &Option<String>| v.as_deref().is_none_or(|v| {
            let digits = v.strip_prefix(['-', '+']).unwrap_or(v);
            !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
        });
        if !accepted(&page) || !accepted(&limit) {
            prop_assert!(Paging::parse(page.as_deref(), limit.as_deref(), default, max).is_err());
        }
    }
}
