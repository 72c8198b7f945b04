//! What a site posts, read into what a submission needs: a contact body for
//! the contacts module, the first touch (attribution), the honeypot, and the
//! fields as sent. Keys are compared without case; the names are the ones
//! Colombian sites actually use (`correo`, `celular`, `departamento`...,
//! [`crm_first_party::contact_body::alias`], which the import reads columns with).
//!
//! Bounded: at most [`MAX_FIELDS`] fields, names of at most [`MAX_NAME`] and
//! values of at most [`MAX_VALUE`] bytes.

use crm_first_party::contact_body::{
    Alias, MAX_CUSTOM_KEYS, MAX_CUSTOM_VALUE, alias, is_custom_property, split_full_name,
};
use crm_sdk::http::{self, Error};
use crm_sdk::types::Request;
use crm_text_decoding::text_in;
use serde_json::{Map, Value, json};

pub const MAX_FIELDS: usize = 100;
pub const MAX_VALUE: usize = 10 * 1024;
/// The longest field name, in bytes.
pub const MAX_NAME: usize = 200;
/// The largest body either door reads, the routes' declared limit (the
/// host refuses a larger one).
pub const MAX_BODY: usize = 64 * 1024;
/// The hidden field people leave empty and bots fill.
pub const HONEYPOT: &str = "_gotcha";

/// Fields a page's machinery adds, not the visitor: a captcha's one-time
/// token, and what a framework names with a leading `_` (WordPress Contact
/// Form 7's `_wpcf7*`, `_wpnonce`). Kept on the submission as sent, never
/// as the contact's properties.
fn is_machinery(lower_name: &str) -> bool {
    lower_name.starts_with('_')
        || ["g-recaptcha-response", "h-captcha-response", "cf-turnstile-response"].contains(&lower_name)
}

/// Attribution keys, by the lower-case names a form may use for them.
const ORIGIN_KEYS: &[(&str, &[&str])] = &[
    ("utmSource", &["utm_source"]),
    ("utmMedium", &["utm_medium"]),
    ("utmCampaign", &["utm_campaign"]),
    ("utmTerm", &["utm_term"]),
    ("utmContent", &["utm_content"]),
    ("gclid", &["gclid"]),
    ("fbclid", &["fbclid"]),
    ("referrer", &["referrer"]),
    ("landingPage", &["pageuri", "page_url"]),
];

/// One submission, read.
pub struct Fields {
    /// Every field as sent, in order.
    pub sent: Map<String, Value>,
    /// The body for the contacts upsert (`contacts-joined`): mapped keys and custom properties.
    pub contact: Map<String, Value>,
    /// Attribution keys present (`utmSource`...), without the form's own.
    pub origin: Map<String, Value>,
    /// Whether the honeypot was filled.
    pub spam: bool,
    /// Whether the body was an HTML form's (urlencoded or multipart) and the
    /// caller did not ask for JSON (`Accept: application/json`, as a script
    /// does): a browser posting without JavaScript, which a 303 takes on to
    /// the form's `redirectUrl`.
    pub redirectable: bool,
}

impl Fields {
    pub fn has_email_or_mobile(&self) -> bool {
        ["email", "mobile"]
            .iter()
            .any(|k| self.contact.get(*k).and_then(Value::as_str).is_some_and(|v| !v.trim().is_empty()))
    }

    /// The body without custom properties: what is retried when the contact
    /// cannot hold them, so a lead is never lost to its extra fields.
    pub fn contact_without_custom(&self) -> Map<String, Value> {
        self.contact.iter().filter(|(k, _)| !is_custom_property(k)).map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    /// Who the submission names, for a deal's name.
    pub fn who(&self) -> String {
        let text = |k: &str| self.contact.get(k).and_then(Value::as_str).unwrap_or("").trim().to_string();
        let name =
            [text("firstName"), text("lastName")].into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" ");
        [name, text("email"), text("mobile")].into_iter().find(|s| !s.is_empty()).unwrap_or_default()
    }
}

/// Reads the body: JSON, or what an HTML form posts
/// (`application/x-www-form-urlencoded`, or `multipart/form-data` as with
/// `enctype="multipart/form-data"` or `fetch` of a `FormData`).
pub fn read(req: &Request) -> Result<Fields, Error> {
    let media_type = http::media_type(req);
    let html_form = media_type == "application/x-www-form-urlencoded" || media_type == "multipart/form-data";
    let sent: Map<String, Value> = if media_type == "application/x-www-form-urlencoded" {
        html_fields(req, urlencoded_pairs(&req.body))
    } else if media_type == "multipart/form-data" {
        html_fields(req, multipart_pairs(req)?)
    } else if http::is_json(req) {
        http::json_object(req)?
    } else {
        return Err(Error::new(
            400,
            "UNSUPPORTED_CONTENT_TYPE",
            "A submission is JSON (application/json) or an HTML form \
             (application/x-www-form-urlencoded or multipart/form-data)",
        ));
    };
    if sent.len() > MAX_FIELDS {
        return Err(Error::validation(
            format!("A submission has at most {MAX_FIELDS} fields"),
            json!({ "max": MAX_FIELDS }),
        ));
    }
    for (key, value) in &sent {
        let size = match value {
            Value::String(s) => s.len(),
            Value::Number(_) | Value::Bool(_) | Value::Null => 0,
            _ => {
                return Err(Error::validation(
                    format!("{key} must be a text, a number or a boolean"),
                    json!({ "field": key }),
                ));
            }
        };
        if key.len() > MAX_NAME {
            return Err(Error::validation(
                format!("A field name is at most {MAX_NAME} bytes"),
                json!({ "max": MAX_NAME }),
            ));
        }
        if size > MAX_VALUE {
            return Err(Error::validation(format!("{key} is longer than {MAX_VALUE} bytes"), json!({ "field": key })));
        }
    }
    let wants_json = http::header(req, "accept").is_some_and(|a| a.to_ascii_lowercase().contains("application/json"));
    Ok(map(sent, html_form && !wants_json))
}

/// An HTML form's fields as sent, names and values still bytes: their
/// charset is known only once every field is read ([`html_fields`]).
type Pairs = Vec<(Vec<u8>, Vec<u8>)>;

/// The fields of an `application/x-www-form-urlencoded` body: `name=value`
/// pairs between `&`, `+` a space, each percent-decoded to bytes.
fn urlencoded_pairs(body: &[u8]) -> Pairs {
    let decoded = |part: &[u8]| -> Vec<u8> {
        let spaced: Vec<u8> = part.iter().map(|&b| if b == b'+' { b' ' } else { b }).collect();
        percent_encoding::percent_decode(&spaced).collect()
    };
    body.split(|&b| b == b'&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let mut parts = pair.splitn(2, |&b| b == b'=');
            let name = decoded(parts.next().unwrap_or_default());
            (name, parts.next().map(decoded).unwrap_or_default())
        })
        .collect()
}

/// The text fields of a `multipart/form-data` body. File parts are left
/// out: a submission is text, and the body's bound already applies to them.
fn multipart_pairs(req: &Request) -> Result<Pairs, Error> {
    let malformed = |e: multer::Error| {
        Error::validation(format!("The multipart/form-data body is malformed: {e}"), json!({ "field": "body" }))
    };
    let content_type = http::header(req, "content-type").unwrap_or("");
    let boundary = multer::parse_boundary(content_type).map_err(malformed)?;
    let body = bytes::Bytes::copy_from_slice(&req.body);
    let mut parts = multer::Multipart::new(
        futures_util::stream::once(async move { Ok::<_, std::convert::Infallible>(body) }),
        boundary,
    );
    // The whole body is in memory, so no await below ever waits.
    futures_executor::block_on(async {
        let mut pairs = Pairs::new();
        while let Some(part) = parts.next_field().await.map_err(malformed)? {
            let Some(name) = part.name().filter(|_| part.file_name().is_none()).map(str::to_string) else {
                continue;
            };
            pairs.push((name.into_bytes(), part.bytes().await.map_err(malformed)?.to_vec()));
        }
        Ok(pairs)
    })
}

/// The charset an HTML form's fields say they are in, if they say. A
/// browser posts a form in its page's charset (or the form's
/// `accept-charset`), and names it only in a field named `_charset_` when
/// the form has one, never in the `Content-Type`; a server's client may
/// name it there.
fn declared_charset(req: &Request, pairs: &Pairs) -> Option<String> {
    let field = pairs.iter().find(|(name, _)| name.eq_ignore_ascii_case(b"_charset_"));
    let field = field.map(|(_, value)| String::from_utf8_lossy(value).into_owned());
    let content_type = http::header(req, "content-type").and_then(|t| t.parse::<mime::Mime>().ok());
    field.or_else(|| content_type?.get_param(mime::CHARSET).map(|c| c.as_str().to_string()))
}

/// An HTML form's fields as text, in the charset they name, else UTF-8,
/// else windows-1252 ([`crm_text_decoding::text_in`], the rule CSV imports
/// follow too: an ISO-8859-1 page's `Bogot%E1` is Bogotá, not `Bogot�`). A
/// name sent more than once (a group of checkboxes, a multiple select;
/// `interes[]` is `interes`) keeps every value, joined with `, `, so none of
/// a visitor's choices is lost. The `_charset_` field itself is not kept.
fn html_fields(req: &Request, pairs: Pairs) -> Map<String, Value> {
    let charset = declared_charset(req, &pairs);
    let mut map = Map::new();
    for (name, value) in &pairs {
        let (name, value) = (text_in(name, charset.as_deref()), text_in(value, charset.as_deref()));
        let name = name.strip_suffix("[]").filter(|n| !n.is_empty()).unwrap_or(&name);
        if name.eq_ignore_ascii_case("_charset_") {
            continue;
        }
        match map.get_mut(name) {
            Some(Value::String(earlier)) => {
                earlier.push_str(", ");
                earlier.push_str(&value);
            }
            _ => {
                map.insert(name.to_string(), Value::String(value.into_owned()));
            }
        }
    }
    map
}

fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn map(sent: Map<String, Value>, redirectable: bool) -> Fields {
    let (mut contact, mut origin, mut spam, mut custom) = (Map::new(), Map::new(), false, 0usize);
    for (key, value) in &sent {
        let lower = key.to_lowercase();
        if lower == HONEYPOT {
            spam |= text(value).is_some();
        } else if let Some(meaning) = alias(key) {
            let Some(v) = text(value) else { continue };
            match meaning {
                Alias::Key(name) => {
                    contact.entry(name).or_insert(Value::String(v));
                }
                Alias::FullName => {
                    let (first, last) = split_full_name(&v);
                    contact.entry("firstName").or_insert(Value::String(first.to_string()));
                    if let Some(last) = last {
                        contact.entry("lastName").or_insert(Value::String(last.to_string()));
                    }
                }
            }
        } else if let Some((name, _)) = ORIGIN_KEYS.iter().find(|(_, names)| names.contains(&lower.as_str())) {
            if let Some(v) = text(value) {
                origin.entry(name.to_string()).or_insert(Value::String(v));
            }
        } else if !is_machinery(&lower)
            && is_custom_property(key)
            && custom < MAX_CUSTOM_KEYS
            && value.as_str().is_none_or(|s| s.chars().count() <= MAX_CUSTOM_VALUE)
            && !value.is_null()
        {
            // Kept as the contacts module keeps an unknown key; the rest stay
            // on the submission only.
            contact.insert(key.clone(), value.clone());
            custom += 1;
        }
    }
    Fields { sent, contact, origin, spam, redirectable }
}

/// Property tests on hostile text ([`crm_hostile_text`]): whatever a site
/// posts, as JSON, urlencoded or multipart, in any charset, is read into a
/// contact body of known keys and bounded custom properties, or refused
/// with a 4xx and a code.
#[cfg(test)]
mod properties {
    use super::*;
    use crm_first_party::contact_body::KNOWN;
    use crm_hostile_text::{around, config, text};
    use proptest::collection::vec;
    use proptest::prelude::*;
    use proptest::sample::select;

    /// Field names as sites send them: the aliases, attribution keys,
    /// machinery, the honeypot, any name.
    fn name() -> impl Strategy<Value = String> {
        let known = select(vec![
            "email",
            "Correo electrónico",
            "celular",
            "Teléfono",
            "nombre",
            "Nombre completo",
            "apellido",
            "empresa",
            "ciudad",
            "departamento",
            "cedula",
            "utm_source",
            "pageUri",
            "gclid",
            "_gotcha",
            "_wpnonce",
            "g-recaptcha-response",
            "interes[]",
            "_charset_",
            "plan",
            "acepta.terminos",
        ])
        .prop_map(String::from);
        prop_oneof![4 => known.clone(), 2 => around(known), 1 => text(20), 1 => "[a-z]{201}".prop_map(String::from)]
    }

    fn value() -> impl Strategy<Value = String> {
        let known = select(vec!["ana@example.com", "300 123 4567", "Ana María Gómez", "Medellín", "iso-8859-1", "sí"])
            .prop_map(String::from);
        prop_oneof![3 => known.clone(), 3 => around(known), 2 => text(60), 1 => text(2100)]
    }

    /// `bytes` percent-encoded where a browser would, or left raw (a
    /// hand-written client), with `+` for some spaces.
    fn encoded(bytes: &[u8], raw: bool) -> Vec<u8> {
        if raw {
            return bytes.to_vec();
        }
        bytes
            .iter()
            .flat_map(|&b| match b {
                b' ' => b"+".to_vec(),
                b if b.is_ascii_alphanumeric() => vec![b],
                b => format!("%{b:02X}").into_bytes(),
            })
            .collect()
    }

    fn request(content_type: &str, body: Vec<u8>, accept: Option<&str>) -> Request {
        let mut headers = vec![("content-type".to_string(), content_type.to_string())];
        headers.extend(accept.map(|a| ("accept".to_string(), a.to_string())));
        Request {
            method: "POST".into(),
            path: "/forms/f/submit".into(),
            path_params: vec![],
            query: vec![],
            headers,
            body,
        }
    }

    /// A submission: its fields, how they are sent, and in which charset.
    fn submission() -> impl Strategy<Value = Request> {
        let fields = || vec((name(), value()), 0..12);
        let charset =
            select(vec!["", "; charset=utf-8", "; charset=ISO-8859-1", "; charset=no-such", "; charset=shift_jis"]);
        let json_value = prop_oneof![
            4 => value().prop_map(Value::String),
            1 => any::<i64>().prop_map(Value::from),
            1 => any::<bool>().prop_map(Value::Bool),
            1 => Just(Value::Null),
            1 => Just(json!(["a", "b"])),
        ];
        let accept = proptest::option::of(select(vec!["application/json", "text/html"]));
        prop_oneof![
            (fields(), charset.clone(), any::<bool>(), accept.clone()).prop_map(|(fields, charset, raw, accept)| {
                let body = fields
                    .iter()
                    .map(|(n, v)| [encoded(n.as_bytes(), raw), b"=".to_vec(), encoded(v.as_bytes(), raw)].concat())
                    .collect::<Vec<_>>()
                    .join(&b'&');
                request(&format!("application/x-www-form-urlencoded{charset}"), body, accept)
            }),
            (fields(), charset, accept.clone()).prop_map(|(fields, charset, accept)| {
                let mut body = Vec::new();
                for (n, v) in &fields {
                    body.extend(
                        format!("--XyZ\r\nContent-Disposition: form-data; name=\"{n}\"\r\n\r\n{v}\r\n").into_bytes(),
                    );
                }
                body.extend(b"--XyZ--\r\n");
                request(&format!("multipart/form-data; boundary=XyZ{charset}"), body, accept)
            }),
            vec((name(), json_value), 0..12).prop_map(|fields| {
                let object: Map<String, Value> = fields.into_iter().collect();
                request("application/json", serde_json::to_vec(&object).unwrap_or_default(), None)
            }),
            (
                select(vec![
                    "application/json",
                    "multipart/form-data; boundary=XyZ",
                    "application/x-www-form-urlencoded",
                    "text/plain",
                    ""
                ]),
                vec(any::<u8>(), 0..300)
            )
                .prop_map(|(content_type, body)| request(content_type, body, None)),
        ]
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn a_submission_is_a_bounded_contact_body_or_a_refusal_with_a_code(req in submission()) {
            let fields = match read(&req) {
                Err(e) => {
                    prop_assert!((400..500).contains(&e.status), "{e:?}");
                    prop_assert!(e.body.get("code").and_then(Value::as_str).is_some_and(|c| !c.is_empty()), "{e:?}");
                    return Ok(());
                }
                Ok(fields) => fields,
            };
            prop_assert!(fields.sent.len() <= MAX_FIELDS);
            let mut custom = 0;
            for (key, value) in &fields.contact {
                if KNOWN.contains(&key.as_str()) {
                    prop_assert!(value.as_str().is_some_and(|v| !v.is_empty() && v == v.trim()), "{key}: {value:?}");
                } else {
                    prop_assert!(is_custom_property(key), "{key:?}");
                    prop_assert!(value.as_str().is_none_or(|s| s.chars().count() <= MAX_CUSTOM_VALUE));
                    custom += 1;
                }
            }
            prop_assert!(custom <= MAX_CUSTOM_KEYS);
            prop_assert!(!fields.contact.contains_key(HONEYPOT));
            if http::media_type(&req) != "application/json" {
                prop_assert!(!fields.sent.keys().any(|k| k.eq_ignore_ascii_case("_charset_")), "an HTML form's charset field is no field");
            }
            prop_assert!(fields.origin.keys().all(|k| ORIGIN_KEYS.iter().any(|(name, _)| name == k)));
            let _ = (fields.has_email_or_mobile(), fields.who(), fields.contact_without_custom());
        }
    }
}
