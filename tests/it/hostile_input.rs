//! Text chosen to break byte-indexed code, sent to every door that reads a
//! client's strings: no answer is a 5xx, an id number of the wrong shape is
//! `400 INVALID_ID_NUMBER` wherever it is written, an import with one bad
//! row imports the others, and a component that traps on one row of an
//! import costs only that row (and never puts the row's text in the log).
//! The parsers' property tests (proptest) live beside each parser.

use crm_tests::site::{Site, send};
use crm_tests::*;
use futures_util::future::join_all;

/// Strings that break code which slices text by bytes, compares it byte by
/// byte or assumes ASCII digits: multibyte letters, combining marks, bidi
/// and zero-width controls, NUL, digits of other scripts, emoji, the last
/// code point, and long runs of each.
fn corpus() -> Vec<String> {
    let short = [
        "900123456é",
        "900123456😀",
        "9é",
        "é",
        "ñ",
        "😀",
        "a\u{301}",
        "\u{301}",
        "900123456\u{301}",
        "\u{202E}8-654321009",
        "\u{2066}900123456-8\u{2069}",
        "900\u{200B}123456-8",
        "\u{FEFF}900123456-8",
        "\0",
        "900123456\08",
        "٩٠٠١٢٣٤٥٦-٨",
        "९००१२३४५६८",
        "９００１２３４５６-８",
        "𝟗𝟎𝟎𝟏𝟐𝟑𝟒𝟓𝟔𝟖",
        "\u{10FFFF}",
        "\u{FFFD}",
        "İstanbul",
        "ß@ß.co",
        "a@b@c",
        "@",
        "-",
        "--",
        "-8",
        "900123456-",
        "   ",
        "\t\r\n",
        "%00%ff",
        "\\u0000",
        "Medell\u{0131}n",
        "Bogot\u{0061}\u{0301}",
    ];
    let mut corpus: Vec<String> = short.iter().map(|s| s.to_string()).collect();
    for unit in ["é", "😀", "\u{301}", "9", "-", "\u{200B}"] {
        corpus.push(unit.repeat(3000));
    }
    corpus
}

/// Every contact field a client writes, and a custom property.
const CONTACT_FIELDS: &[&str] = &[
    "email",
    "mobile",
    "whatsapp_phone",
    "phone",
    "firstName",
    "first_name",
    "lastName",
    "last_name",
    "company",
    "companyId",
    "city",
    "cityCode",
    "state",
    "country",
    "idType",
    "idNumber",
    "linkedConversationId",
    "nota",
];

const COMPANY_FIELDS: &[&str] = &["name", "city", "cityCode", "state", "country", "idType", "idNumber", "nota"];

/// A contact body with `field` set to `text` beside what makes it a contact
/// (an email, or a mobile when the email is the field), and a document
/// type when the number is the field.
fn contact_body(n: usize, field: &str, text: &str) -> Value {
    let mut body = match field {
        "email" => json!({ "mobile": format!("300{n:07}") }),
        _ => json!({ "email": format!("hostile{n}@x.co") }),
    };
    body[field] = json!(text);
    if field == "idNumber" {
        body["idType"] = json!(["NIT", "CC", "PA", "TI", "CE", "PEP"][n % 6]);
    }
    body
}

/// `pairs` as an urlencoded body.
fn urlencoded(pairs: &[(&str, &str)]) -> String {
    let mut url = reqwest::Url::parse("http://x/").unwrap();
    url.query_pairs_mut().extend_pairs(pairs);
    url.query().unwrap_or_default().to_string()
}

/// A public form post of `pairs`, urlencoded.
fn post_urlencoded(host: &Host, path: &str, pairs: &[(&str, &str)]) -> reqwest::RequestBuilder {
    host.request(Method::POST, path).header("content-type", "application/x-www-form-urlencoded").body(urlencoded(pairs))
}

/// Sends `requests` sixteen at a time; the ones answered 5xx, described.
async fn server_errors(requests: Vec<(String, reqwest::RequestBuilder)>) -> Vec<String> {
    let mut failed = Vec::new();
    let mut requests = requests.into_iter().peekable();
    while requests.peek().is_some() {
        let wave: Vec<_> = requests.by_ref().take(16).collect();
        let answers = join_all(wave.into_iter().map(|(what, req)| async move {
            let r = req.send().await.expect("sent");
            let status = r.status();
            (what, status, r.text().await.unwrap_or_default())
        }))
        .await;
        for (what, status, text) in answers {
            if status.is_server_error() {
                failed.push(format!("{what}: {status} {}", text.chars().take(200).collect::<String>()));
            }
        }
    }
    failed
}

#[tokio::test]
async fn no_string_in_any_field_of_any_door_is_answered_with_a_server_error() {
    let site = Site::open_with(&[("CRM_FORM_RATE_PER_MINUTE", "0")]).await;
    let (host, token) = (&site.host, &site.token);
    let (form, key) = site.form(json!({ "name": "Hostil" })).await;
    let contact = host.post("/api/contacts", token, &json!({ "email": "target@x.co" })).await;
    let contact = contact.json()["data"]["id"].as_str().unwrap().to_string();
    let company = host.post("/api/companies", token, &json!({ "name": "Target SAS" })).await;
    assert_eq!(company.status, 201, "{}", company.text);
    let company = company.json()["data"]["id"].as_str().unwrap().to_string();
    let corpus = corpus();

    let mut requests = Vec::new();
    let mut n = 0;
    for field in CONTACT_FIELDS {
        for text in &corpus {
            n += 1;
            let body = contact_body(n, field, text);
            let what = |door: &str| format!("{door} {field}={:?}", text.chars().take(12).collect::<String>());
            requests.push((
                what("POST /contacts"),
                host.request(Method::POST, "/api/contacts").bearer_auth(token).json(&body),
            ));
            let put = format!("/api/contacts/{contact}");
            requests.push((what("PUT /contacts/{id}"), host.request(Method::PUT, &put).bearer_auth(token).json(&body)));
            let submit = format!("/api/forms/{form}/submit");
            requests
                .push((what("token form door"), host.request(Method::POST, &submit).bearer_auth(token).json(&body)));
            let public = site.public_url(&form, &key);
            requests.push((what("public form door, JSON"), host.request(Method::POST, &public).json(&body)));
            let pairs: Vec<(&str, &str)> =
                body.as_object().unwrap().iter().map(|(k, v)| (k.as_str(), v.as_str().unwrap_or_default())).collect();
            requests.push((what("public form door, urlencoded"), post_urlencoded(host, &public, &pairs)));
        }
    }
    for field in COMPANY_FIELDS {
        for text in &corpus {
            let mut body = json!({ "name": "Hostil SAS" });
            body[*field] = json!(text);
            if *field == "idNumber" {
                body["idType"] = json!("NIT");
            }
            let what = |door: &str| format!("{door} {field}={:?}", text.chars().take(12).collect::<String>());
            requests.push((
                what("POST /companies"),
                host.request(Method::POST, "/api/companies").bearer_auth(token).json(&body),
            ));
            let put = format!("/api/companies/{company}");
            requests
                .push((what("PUT /companies/{id}"), host.request(Method::PUT, &put).bearer_auth(token).json(&body)));
        }
    }
    // Query parameters of the contact list, the catalog and the bookmark header.
    for text in &corpus {
        let what = |door: &str| format!("{door} {:?}", text.chars().take(12).collect::<String>());
        for (name, path) in [
            ("search", "/api/contacts"),
            ("createdFrom", "/api/contacts"),
            ("createdTo", "/api/contacts"),
            ("cityCode", "/api/contacts"),
            ("page", "/api/contacts"),
            ("limit", "/api/contacts"),
            ("sortBy", "/api/contacts"),
            ("nota", "/api/contacts"),
            ("q", "/api/catalogs/municipalities"),
            ("state", "/api/catalogs/municipalities"),
            ("city", "/api/catalogs/resolve"),
        ] {
            let query = urlencoded(&[(name, text.as_str())]);
            let req = host.request(Method::GET, &format!("{path}?{query}")).bearer_auth(token);
            requests.push((what(&format!("GET {path}?{name}=")), req));
        }
        if let Ok(value) = reqwest::header::HeaderValue::from_str(text) {
            let req = host.request(Method::GET, "/api/me").bearer_auth(token).header("crm-bookmark", value);
            requests.push((what("Crm-Bookmark"), req));
        }
    }
    let count = requests.len();
    let failed = server_errors(requests).await;
    assert!(failed.is_empty(), "{} of {count} answers were 5xx:\n{}", failed.len(), failed.join("\n"));

    // One import of every hostile row, as JSON and as CSV: answered, each
    // row imported or rejected on its own.
    let rows: Vec<Value> = (0..corpus.len() * 3)
        .map(|i| contact_body(100_000 + i, ["idNumber", "mobile", "city"][i % 3], &corpus[i / 3]))
        .collect();
    let r = host.post("/api/import/contacts", token, &json!({ "rows": rows })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let data = &r.json()["data"];
    assert_eq!(data["total"], rows.len(), "{data}");
    assert_eq!(
        data["created"].as_u64().unwrap() + data["updated"].as_u64().unwrap() + data["rejected"].as_u64().unwrap(),
        rows.len() as u64
    );
    let mut csv = String::from("email;idType;idNumber;celular;ciudad\n");
    for (i, text) in corpus.iter().enumerate() {
        let cell = text.replace('"', "\"\"");
        csv.push_str(&format!("csv{i}@x.co;NIT;\"{cell}\";\"{cell}\";\"{cell}\"\n"));
    }
    let r = send(
        host.request(Method::POST, "/api/import/contacts")
            .bearer_auth(token)
            .header("content-type", "text/csv")
            .body(csv),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json()["data"]["total"], corpus.len(), "{}", r.text);
}

#[tokio::test]
async fn an_id_number_with_a_character_of_several_bytes_is_invalid_at_every_door() {
    let site = Site::open_with(&[("CRM_FORM_RATE_PER_MINUTE", "0")]).await;
    let (host, token) = (&site.host, &site.token);
    let (form, key) = site.form(json!({ "name": "Hostil" })).await;
    let contact = host.post("/api/contacts", token, &json!({ "email": "target@x.co" })).await.json()["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let company = host.post("/api/companies", token, &json!({ "name": "Target SAS" })).await.json()["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    for number in ["900123456é", "9é", "900123456😀", "900123456\u{301}", "٩٠٠١٢٣٤٥٦٨"] {
        let body = json!({ "email": "nit@x.co", "name": "Nit SAS", "idType": "NIT", "idNumber": number });
        let invalid = |r: &Reply, door: &str| {
            assert_eq!(r.status, 400, "{door} {number:?}: {}", r.text);
            assert_eq!(
                (&r.json()["code"], &r.json()["field"]),
                (&json!("INVALID_ID_NUMBER"), &json!("idNumber")),
                "{door}: {}",
                r.text
            );
        };
        invalid(&host.post("/api/contacts", token, &body).await, "POST /contacts");
        invalid(
            &host.call(Method::PUT, &format!("/api/contacts/{contact}"), Some(token), Some(&body)).await,
            "PUT /contacts",
        );
        invalid(&host.post("/api/companies", token, &body).await, "POST /companies");
        invalid(
            &host.call(Method::PUT, &format!("/api/companies/{company}"), Some(token), Some(&body)).await,
            "PUT /companies",
        );
        // The form doors answer a field's refusal in their own words, with the same code.
        for r in [site.submit(&form, &body).await, site.public(&form, &key, &body).await] {
            assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("INVALID_ID_NUMBER")), "{}", r.text);
        }
        let pairs = [("email", "nit@x.co"), ("tipo_documento", "NIT"), ("numero_documento", number)];
        let r = send(post_urlencoded(host, &site.public_url(&form, &key), &pairs)).await;
        assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("INVALID_ID_NUMBER")), "{}", r.text);
    }

    // An import of twenty good rows and that one imports the twenty.
    let mut rows: Vec<Value> = (0..20).map(|i| json!({ "email": format!("row{i}@x.co") })).collect();
    rows.insert(7, json!({ "email": "bad@x.co", "idType": "NIT", "idNumber": "900123456é" }));
    let r = host.post("/api/import/contacts", token, &json!({ "rows": rows })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let data = &r.json()["data"];
    assert_eq!((&data["created"], &data["rejected"]), (&json!(20), &json!(1)), "{data}");
    assert_eq!(data["rejectedRows"][0]["row"], 8);
    assert_eq!(data["rejectedRows"][0]["reason"]["code"], "INVALID_ID_NUMBER");
}

#[tokio::test]
async fn a_trap_in_one_row_of_an_import_costs_only_that_row_and_leaves_its_text_out_of_the_log() {
    // The contacts module replaced by one that traps on a row whose
    // `idNumber` starts with TRAP (its panic message carries the row), and
    // commits three rows at a time.
    let plugins = tempfile::tempdir().unwrap();
    std::fs::copy(built_component("fragile_contacts"), plugins.path().join("fragile_contacts.wasm")).unwrap();
    let plugins_dir = plugins.path().display().to_string();
    let host = Host::start_logging(&[("CRM_PLUGINS_DIR", &plugins_dir), ("RUST_LOG", "debug")]).await;
    let (_, token) = host.org_with_token(json!({ "name": "Frágil" })).await;
    let secret = "TRAP-4111111111111111";
    let mut rows: Vec<Value> = (0..19).map(|i| json!({ "email": format!("row{i}@x.co") })).collect();
    // Row 5 traps after a chunk of three committed and one row prepared;
    // row 14 traps again in the fresh instance the host goes on with.
    rows.insert(4, json!({ "email": "trap1@x.co", "idNumber": secret }));
    rows.insert(13, json!({ "email": "trap2@x.co", "idNumber": secret }));
    let r = host.post("/api/import/contacts", &token, &json!({ "rows": rows })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let data = &r.json()["data"];
    let counts = (&data["total"], &data["created"], &data["updated"], &data["rejected"]);
    assert_eq!(counts, (&json!(21), &json!(19), &json!(0), &json!(2)), "{data}");
    let rejected: Vec<(Value, Value)> = data["rejectedRows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| (row["row"].clone(), row["reason"]["code"].clone()))
        .collect();
    assert_eq!(rejected, [(json!(5), json!("INTERNAL_ROW_ERROR")), (json!(14), json!("INTERNAL_ROW_ERROR"))]);
    let stored = host.get("/api/contacts", &token).await.json()["emails"].clone();
    let mut stored: Vec<String> = serde_json::from_value(stored).unwrap();
    stored.sort();
    let mut expected: Vec<String> = (0..19).map(|i| format!("row{i}@x.co")).collect();
    expected.sort();
    assert_eq!(stored, expected, "every good row stored once, no trapped one");
    let history = host.get(&format!("/api/import/contacts/{}", data["id"].as_str().unwrap()), &token).await;
    assert_eq!(history.json()["data"]["rejectedRows"], data["rejectedRows"]);

    let log = host.log();
    assert!(log.contains("the contacts module trapped in an upsert-many"), "the trap is logged");
    assert!(!log.contains("4111111111111111") && !log.contains("trap1@x.co"), "no row text in the log:\n{log}");
}
