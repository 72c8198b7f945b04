//! What a client controls on a contact is bounded, with a 400 that names the
//! limit, and no stored contact can make a later read fail. Emails are
//! compared in Unicode NFC and may not hide invisible characters.

use crm_tests::*;

async fn setup() -> (Host, String) {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    (host, token)
}

fn assert_validation(r: &Reply, field_or_limit: (&str, &str)) {
    assert_eq!(r.status, 400, "{}", r.text);
    let body = r.json();
    assert_eq!(body["code"], "VALIDATION_ERROR", "{}", r.text);
    assert_eq!(body["details"][field_or_limit.0], field_or_limit.1, "{}", r.text);
}

#[tokio::test]
async fn tags_and_text_fields_are_bounded() {
    let (host, token) = setup().await;
    let long_tag = "t".repeat(19_500);
    let tags: Vec<&str> = (0..50).map(|_| long_tag.as_str()).collect();
    let r = host.post("/api/contacts", &token, &json!({ "email": "tags@x.co", "tags": tags })).await;
    assert_validation(&r, ("field", "tags"));
    let many: Vec<String> = (0..51).map(|i| format!("t{i}")).collect();
    let r = host.post("/api/contacts", &token, &json!({ "email": "tags@x.co", "tags": many })).await;
    assert_validation(&r, ("field", "tags"));
    let r = host.post("/api/contacts", &token, &json!({ "email": "tags@x.co", "firstName": "n".repeat(501) })).await;
    assert_validation(&r, ("field", "firstName"));
    // Both spellings of a name are checked, not only the one that is read.
    let body = json!({ "email": "tags@x.co", "lastName": "Ruiz", "last_name": "n".repeat(501) });
    assert_validation(&host.post("/api/contacts", &token, &body).await, ("field", "last_name"));
    for email in ["@x.co", "ana@", "ana@b@x.co", "ana maria@x.co", "sin-arroba"] {
        let r = host.post("/api/contacts", &token, &json!({ "email": email })).await;
        assert_validation(&r, ("field", "email"));
    }
    let ok: Vec<String> = (0..50).map(|i| format!("{i}-{}", "t".repeat(95))).collect();
    let r = host.post("/api/contacts", &token, &json!({ "email": "tags@x.co", "tags": ok })).await;
    assert_eq!(r.status, 201, "{}", r.text);
    // Nothing refused was written.
    assert_eq!(host.get("/api/contacts", &token).await.json()["pagination"]["total"], 1);
}

#[tokio::test]
async fn tags_are_a_set_without_blanks_or_case_in_the_order_sent() {
    let (host, token) = setup().await;
    let tags =
        json!(["vip", " vip ", "", "  ", "Cliente", "cafe\u{301}", "café", "VIP", "Promoción", "PROMOCION", "cafe"]);
    let r = host.post("/api/contacts", &token, &json!({ "email": "set@x.co", "tags": tags })).await;
    assert_eq!(r.status, 201, "{}", r.text);
    // Compared without case or accents; the first spelling is kept.
    assert_eq!(r.json()["data"]["tags"], json!(["vip", "Cliente", "café", "Promoción"]));
    let id = r.json()["data"]["id"].as_str().unwrap().to_string();
    let body = json!({ "tags": ["b", "a", "b", " "] });
    let r = host.call(Method::PUT, &format!("/api/contacts/{id}"), Some(&token), Some(&body)).await;
    assert_eq!(r.json()["data"]["tags"], json!(["b", "a"]), "{}", r.text);
}

#[tokio::test]
async fn a_contact_is_bounded_in_properties_and_bytes_and_lists_stay_readable() {
    let (host, token) = setup().await;
    // One request with 50 values of 2,000 characters: past the size of a contact.
    let mut big = serde_json::Map::new();
    big.insert("email".into(), json!("big@x.co"));
    for i in 0..50 {
        big.insert(format!("k{i}"), json!("v".repeat(2000)));
    }
    let r = host.post("/api/contacts", &token, &Value::Object(big)).await;
    assert_validation(&r, ("limit", "contactBytes"));

    // Properties added ten at a time reach the cap on stored properties.
    let r = host.post("/api/contacts", &token, &json!({ "email": "grow@x.co" })).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let id = r.json()["data"]["id"].as_str().unwrap().to_string();
    for round in 0..10 {
        let mut body = serde_json::Map::new();
        for i in 0..10 {
            body.insert(format!("p{round}_{i}"), json!("x"));
        }
        let r = host.call(Method::PUT, &format!("/api/contacts/{id}"), Some(&token), Some(&Value::Object(body))).await;
        assert_eq!(r.status, 200, "round {round}: {}", r.text);
    }
    let r =
        host.call(Method::PUT, &format!("/api/contacts/{id}"), Some(&token), Some(&json!({ "one_more": "x" }))).await;
    assert_validation(&r, ("limit", "customProperties"));

    // Growing one contact by PUTs stops at the byte bound, with a 400.
    let r = host.post("/api/contacts", &token, &json!({ "email": "bytes@x.co" })).await;
    let id = r.json()["data"]["id"].as_str().unwrap().to_string();
    let mut refused = None;
    for round in 0..20 {
        let body = json!({ format!("b{round}"): "y".repeat(2000) });
        let r = host.call(Method::PUT, &format!("/api/contacts/{id}"), Some(&token), Some(&body)).await;
        if r.status != 200 {
            assert_validation(&r, ("limit", "contactBytes"));
            refused = Some(round);
            break;
        }
    }
    assert!(refused.is_some_and(|r| r >= 5), "the byte bound was reached at {refused:?}");

    // Many contacts at the largest size still list in one page of 1,000.
    for i in 0..40 {
        let mut body = serde_json::Map::new();
        body.insert("email".into(), json!(format!("full{i}@x.co")));
        for k in 0..7 {
            body.insert(format!("f{k}"), json!("z".repeat(2000)));
        }
        let r = host.post("/api/contacts", &token, &Value::Object(body)).await;
        assert_eq!(r.status, 201, "{}", r.text);
    }
    for query in ["limit=1000", "limit=1000&exists=f0", "limit=1000&search=full", "limit=1000&sortBy=updatedAt"] {
        let r = host.get(&format!("/api/contacts?{query}"), &token).await;
        assert_eq!(r.status, 200, "{query}: {}", &r.text[..r.text.len().min(300)]);
        assert!(r.json()["pagination"]["total"].as_u64().unwrap() >= 40, "{query}");
    }
}

#[tokio::test]
async fn look_alike_emails_are_one_contact_or_refused() {
    let (host, token) = setup().await;
    let composed = "jos\u{e9}@uni.co";
    let decomposed = "jose\u{301}@uni.co";
    let r = host.post("/api/contacts", &token, &json!({ "email": composed, "firstName": "José" })).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let id = r.json()["data"]["id"].as_str().unwrap().to_string();
    let r = host.post("/api/contacts", &token, &json!({ "email": decomposed, "lastName": "Pérez" })).await;
    assert_eq!(r.status, 200, "the decomposed spelling finds the same contact: {}", r.text);
    assert_eq!(r.json()["contact"]["_id"], id.as_str());
    for hidden in
        ["jos\u{e9}\u{200b}@uni.co", "\u{feff}jos\u{e9}@uni.co", "jos\u{e9}@uni\u{0007}.co", "jos\u{e9}@un\u{200d}i.co"]
    {
        let r = host.post("/api/contacts", &token, &json!({ "email": hidden })).await;
        assert_validation(&r, ("field", "email"));
    }
    assert_eq!(host.get("/api/contacts", &token).await.json()["pagination"]["total"], 1);
    // Search finds the contact with either spelling.
    for term in ["jos%C3%A9", "jose%CC%81", "JOS%C3%89", "p%C3%A9rez", "pe%CC%81rez"] {
        let r = host.get(&format!("/api/contacts?search={term}"), &token).await;
        assert_eq!(r.json()["pagination"]["total"], 1, "search={term}: {}", r.text);
    }
}
