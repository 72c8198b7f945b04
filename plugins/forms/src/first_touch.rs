//! The first touch a submission gives its contact (`attribution`): the
//! form's channel and id, the campaign keys sent, and the page (a `pageUri` /
//! `page_url` field, else the `Referer`). The contacts module keeps it only
//! on a contact that has none; each submission keeps its own.
//!
//! Values are cut to [`MAX_URL`] or [`MAX_TEXT`] characters rather than
//! refused: they come from hidden fields and tracking scripts, which the
//! visitor cannot correct, and uncut they could take a contact past its size
//! and lose the lead. The submission's fields keep them as sent.

use crm_sdk::http::{self, Error};
use crm_sdk::types::Request;
use serde::Serialize;
use serde_json::value::RawValue;

use crate::fields::Fields;
use crate::form::Form;

/// The longest page address kept, in characters.
const MAX_URL: usize = 2000;
/// The longest campaign value (`utm_*`, `gclid`, `fbclid`) kept, in
/// characters; analytics tools keep 100.
const MAX_TEXT: usize = 500;

/// The first touch as contacts keep it, every key present (`null` when not sent).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FirstTouch<'a> {
    first_touch_at: &'a str,
    channel: &'static str,
    form_id: &'a str,
    utm_source: Option<&'a str>,
    utm_medium: Option<&'a str>,
    utm_campaign: Option<&'a str>,
    utm_term: Option<&'a str>,
    utm_content: Option<&'a str>,
    referrer: Option<&'a str>,
    landing_page: Option<&'a str>,
    gclid: Option<&'a str>,
    fbclid: Option<&'a str>,
    /// Always `null`: a form is not one of the app's landing pages.
    landing_page_id: Option<&'a str>,
    landing_page_name: Option<&'a str>,
}

/// The first touch of a submission made `now`, as JSON text: it goes to the
/// contacts module and on the submission as it is.
pub fn of(form: &Form, fields: &Fields, req: &Request, now: &str) -> Result<Box<RawValue>, Error> {
    let sent = |key: &str, max: usize| fields.origin.get(key).and_then(|v| v.as_str()).map(|v| cut(v, max));
    let touch = FirstTouch {
        first_touch_at: now,
        channel: "form",
        form_id: &form.id,
        utm_source: sent("utmSource", MAX_TEXT),
        utm_medium: sent("utmMedium", MAX_TEXT),
        utm_campaign: sent("utmCampaign", MAX_TEXT),
        utm_term: sent("utmTerm", MAX_TEXT),
        utm_content: sent("utmContent", MAX_TEXT),
        referrer: sent("referrer", MAX_URL),
        landing_page: sent("landingPage", MAX_URL).or_else(|| http::header(req, "referer").map(|r| cut(r, MAX_URL))),
        gclid: sent("gclid", MAX_TEXT),
        fbclid: sent("fbclid", MAX_TEXT),
        landing_page_id: None,
        landing_page_name: None,
    };
    serde_json::value::to_raw_value(&touch).map_err(Error::internal)
}

/// `text`'s first `max` characters.
fn cut(text: &str, max: usize) -> &str {
    text.char_indices().nth(max).and_then(|(end, _)| text.get(..end)).unwrap_or(text)
}

/// Property tests on hostile text ([`crm_hostile_text`]): attribution
/// values are cut by characters, never inside one.
#[cfg(test)]
mod properties {
    use super::*;
    use crm_hostile_text::{config, text};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn a_value_is_cut_to_its_first_characters(value in text(600), max in 0..2500usize) {
            let kept = cut(&value, max);
            prop_assert!(value.starts_with(kept));
            prop_assert_eq!(kept.chars().count(), value.chars().count().min(max));
        }
    }
}
