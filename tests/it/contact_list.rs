//! `GET /api/contacts`: pagination, search, filters one by one and combined, sorting.

use crm_tests::*;

async fn seeded() -> (Host, String) {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    for body in [
        json!({ "email": "ana@acme.co", "firstName": "Ana", "lastName": "Gómez", "cityCode": "05001", "company": "Acme", "plan": "gold", "tier": "A" }),
        json!({ "email": "bruno@beta.co", "firstName": "Bruno", "cityCode": "05088", "plan": "silver" }),
        json!({ "mobile": "3001112233", "firstName": "Carla", "cityCode": "76001", "plan": "Gold" }),
        json!({ "email": "dario@acme.co", "firstName": "Darío", "cityCode": "11001", "company": "Acme (Bogotá)" }),
        json!({ "email": "eva@x.co", "firstName": "Eva", "phone": "6015550000", "plan": "gold.*" }),
    ] {
        let r = host.post("/api/contacts", &token, &body).await;
        assert_eq!(r.status, 201, "{}", r.text);
    }
    (host, token)
}

fn names(r: &Reply) -> Vec<String> {
    r.json()["data"].as_array().unwrap().iter().map(|c| c["firstName"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn pagination_defaults_clamps_and_counts() {
    let (host, token) = seeded().await;
    let r = host.get("/api/contacts", &token).await;
    assert_eq!(r.json()["pagination"], json!({ "total": 5, "page": 1, "limit": 100, "pages": 1 }));
    assert_eq!(names(&r), ["Eva", "Darío", "Carla", "Bruno", "Ana"], "newest first by default");
    let r = host.get("/api/contacts?limit=2&page=2", &token).await;
    assert_eq!(r.json()["pagination"], json!({ "total": 5, "page": 2, "limit": 2, "pages": 3 }));
    assert_eq!(names(&r), ["Carla", "Bruno"]);
    assert_eq!(host.get("/api/contacts?limit=5000", &token).await.json()["pagination"]["limit"], 1000);
    assert_eq!(host.get("/api/contacts?limit=0", &token).await.json()["pagination"]["limit"], 1);
    assert_eq!(host.get("/api/contacts?limit=-7", &token).await.json()["pagination"]["limit"], 1);
    assert_eq!(host.get("/api/contacts?page=0", &token).await.json()["pagination"]["page"], 1);
    // A page or limit that is not a whole number is the client's mistake, not page 1.
    for query in ["page=abc", "page=", "page=1.5", "limit=ten", "limit=2.5", "limit=", "page=+%096", "limit=%205"] {
        let r = host.get(&format!("/api/contacts?{query}"), &token).await;
        assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("VALIDATION_ERROR")), "{query}");
    }
    assert_eq!(
        host.get("/api/contacts?limit=99999999999999999999999", &token).await.json()["pagination"]["limit"],
        1000
    );
    let r = host.get("/api/contacts?page=9", &token).await;
    assert_eq!((r.json()["data"].clone(), r.json()["pagination"]["total"].clone()), (json!([]), json!(5)));
}

#[tokio::test]
async fn search_is_case_insensitive_literal_and_covers_the_named_fields() {
    let (host, token) = seeded().await;
    assert_eq!(names(&host.get("/api/contacts?search=ACME", &token).await), ["Darío", "Ana"], "company and email");
    assert_eq!(names(&host.get("/api/contacts?search=g%C3%B3mez", &token).await), ["Ana"], "last name");
    // Without accents, as a Spanish speaker types on a phone, or with them
    // where the name has none; a decomposed accent (`o` + U+0301) is one too.
    for term in ["gomez", "GOMEZ", "go%CC%81mez", "dar%C3%ADo", "dario", "bogot%C3%A1", "bogota"] {
        let expected = if term.to_lowercase().starts_with('g') { ["Ana"] } else { ["Darío"] };
        assert_eq!(names(&host.get(&format!("/api/contacts?search={term}"), &token).await), expected, "{term}");
    }
    assert_eq!(names(&host.get("/api/contacts?search=an%C3%A1", &token).await), ["Ana"], "ana@acme.co");
    assert_eq!(names(&host.get("/api/contacts?search=1112", &token).await), ["Carla"], "mobile");
    assert_eq!(names(&host.get("/api/contacts?search=555", &token).await), ["Eva"], "phone");
    assert_eq!(names(&host.get("/api/contacts?search=(bogot", &token).await), ["Darío"], "literal: ( is not a pattern");
    assert!(names(&host.get("/api/contacts?search=.*", &token).await).is_empty());
}

/// A number is found however it is written: with or without the spaces,
/// dashes, dots and parentheses people put in it, and a whole Colombian
/// number with or without its country code, on either side.
#[tokio::test]
async fn search_finds_numbers_however_they_are_written() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    for body in [
        json!({ "email": "a@x.co", "firstName": "Fijo", "phone": "(604) 444-5555" }),
        json!({ "mobile": "+57 300 123 4567", "firstName": "Whatsapp" }),
        json!({ "mobile": "300.765.4321", "firstName": "Web" }),
        json!({ "email": "d@x.co", "firstName": "Tienda", "company": "Tienda 24-7" }),
        json!({ "email": "ana.1990@x.co", "firstName": "Ana" }),
    ] {
        let r = host.post("/api/contacts", &token, &body).await;
        assert_eq!(r.status, 201, "{}", r.text);
    }
    for (term, expected) in [
        ("6044445555", vec!["Fijo"]),
        ("604%20444%205555", vec!["Fijo"]),
        ("(604)%20444", vec!["Fijo"]),
        ("444-5555", vec!["Fijo"]),
        ("300%20123%204567", vec!["Whatsapp"]),
        ("3001234567", vec!["Whatsapp"]),
        ("%2B57%20300%20123%204567", vec!["Whatsapp"]),
        ("%2B57%20300%20765%204321", vec!["Web"]),
        ("300-765", vec!["Web"]),
        ("573007654321", vec!["Web"]),
        ("573007654322", vec![]),
        ("24-7", vec!["Tienda"]),
        ("247", vec!["Tienda"]),
        ("ana.1990", vec!["Ana"]),
        ("a.1", vec!["Ana"]),
        ("300", vec!["Web", "Whatsapp"]),
    ] {
        assert_eq!(names(&host.get(&format!("/api/contacts?search={term}"), &token).await), expected, "{term}");
    }
    // A mobile filter reads its value as a mobile is stored: digits.
    for (query, expected) in [
        ("mobile=300%20123%204567", vec!["Whatsapp"]),
        ("whatsapp_phone=300-765-4321", vec!["Web"]),
        ("mobile=%2B57%20300%20765%204321", vec!["Web"]),
        ("mobile=%2B57%20300%20123%204567&matchMode=exact", vec!["Whatsapp"]),
        ("mobile=300%20123%204567&matchMode=exact", vec![]),
        ("mobile=300-ABC", vec![]),
        ("mobile=--", vec![]),
    ] {
        assert_eq!(names(&host.get(&format!("/api/contacts?{query}"), &token).await), expected, "{query}");
    }
}

#[tokio::test]
async fn property_filters_or_within_a_key_and_across_keys() {
    let (host, token) = seeded().await;
    assert_eq!(
        names(&host.get("/api/contacts?plan=gold", &token).await),
        ["Eva", "Carla", "Ana"],
        "contains, case-insensitive"
    );
    assert_eq!(
        names(&host.get("/api/contacts?plan=gold&matchMode=exact", &token).await),
        ["Ana"],
        "exact is case-sensitive"
    );
    assert_eq!(names(&host.get("/api/contacts?plan=gold.*&matchMode=exact", &token).await), ["Eva"], "literal");
    assert_eq!(
        names(&host.get("/api/contacts?plan=gold&plan=silver&matchMode=exact", &token).await),
        ["Bruno", "Ana"],
        "repeat = OR"
    );
    assert_eq!(names(&host.get("/api/contacts?plan=gold&tier=A", &token).await), ["Ana"], "keys = AND");
    assert_eq!(names(&host.get("/api/contacts?plan=GOLD&plan=nada&tier=a", &token).await), ["Ana"], "any case");
}

/// Each filter is tested on every contact walked: the client does not choose
/// how many (20 keys, 100 values a key, 20 keys of `missing` or `exists`).
#[tokio::test]
async fn property_filters_are_bounded() {
    let (host, token) = seeded().await;
    let query = |pairs: Vec<String>| format!("/api/contacts?{}", pairs.join("&"));
    let twenty: Vec<String> = (0..19).map(|i| format!("p{i}=x")).chain(["plan=gold".to_string()]).collect();
    assert!(names(&host.get(&query(twenty.clone()), &token).await).is_empty(), "20 keys are answered");
    let r = host.get(&query([twenty, vec!["p20=x".into()]].concat()), &token).await;
    assert_eq!(
        (r.status.as_u16(), r.json()),
        (
            400,
            json!({ "success": false, "code": "VALIDATION_ERROR", "message": "A list takes at most 20 property filters", "details": { "limit": 20 } })
        )
    );
    let hundred: Vec<String> = (0..100).map(|i| format!("plan=v{i}")).collect();
    assert_eq!(host.get(&query(hundred.clone()), &token).await.status, 200);
    let r = host.get(&query([hundred, vec!["plan=gold".into()]].concat()), &token).await;
    assert_eq!((r.status.as_u16(), r.json()["details"].clone()), (400, json!({ "field": "plan" })), "{}", r.text);
    let keys = (0..21).map(|i| format!("k{i}")).collect::<Vec<_>>().join(",");
    for param in ["missing", "exists"] {
        let r = host.get(&format!("/api/contacts?{param}={keys}"), &token).await;
        assert_eq!((r.status.as_u16(), r.json()["details"].clone()), (400, json!({ "field": param })), "{}", r.text);
    }
}

#[tokio::test]
async fn city_and_state_codes_are_repeatable() {
    let (host, token) = seeded().await;
    assert_eq!(names(&host.get("/api/contacts?cityCode=05001&matchMode=exact", &token).await), ["Ana"]);
    assert_eq!(names(&host.get("/api/contacts?cityCode=05001&cityCode=76001", &token).await), ["Carla", "Ana"]);
    assert_eq!(
        names(&host.get("/api/contacts?stateCode=05&matchMode=exact", &token).await),
        ["Bruno", "Ana"],
        "the whole state"
    );
    assert_eq!(names(&host.get("/api/contacts?stateCode=05&search=bruno", &token).await), ["Bruno"], "combined");
    assert_eq!(host.get("/api/contacts?cityCode=5001", &token).await.status, 400);
    assert_eq!(host.get("/api/contacts?cityCode=%2005001", &token).await.status, 400, "exactly the digits");
    let many = vec!["stateCode=05"; 101].join("&");
    assert_eq!(host.get(&format!("/api/contacts?{many}"), &token).await.status, 400, "101 values, even repeated");

    // Moving a contact moves it between city and state lists.
    let r = host.post("/api/contacts", &token, &json!({ "mobile": "3001112233", "cityCode": "08001" })).await;
    assert_eq!(r.status, 200);
    assert!(names(&host.get("/api/contacts?cityCode=76001", &token).await).is_empty());
    assert_eq!(names(&host.get("/api/contacts?cityCode=08001", &token).await), ["Carla"]);
    assert_eq!(names(&host.get("/api/contacts?stateCode=08", &token).await), ["Carla"]);
    assert!(names(&host.get("/api/contacts?stateCode=76", &token).await).is_empty());
}

/// A list reads a record's stored bytes before decoding it, and skips the
/// records that cannot hold a filter's value. Values whose stored form is not
/// their text (escaped quotes, a number) or whose lowercase is not the ASCII
/// fold of their bytes (`İ`, accented capitals) must still be found.
#[tokio::test]
async fn filters_find_values_whatever_their_stored_form() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    for body in [
        json!({ "email": "a@x.co", "firstName": "Ana", "tier": "PREMİUM", "score": 42 }),
        json!({ "email": "b@x.co", "firstName": "Bea", "zone": "BOGOTÁ NORTE", "note": "dice \"hola\"" }),
        json!({ "email": "c@x.co", "firstName": "Cruz", "tier": "basic", "zone": "Cali" }),
    ] {
        let r = host.post("/api/contacts", &token, &body).await;
        assert_eq!(r.status, 201, "{}", r.text);
    }
    for (query, expected) in [
        ("tier=premi", vec!["Ana"]),
        ("tier=PREMİUM&matchMode=exact", vec!["Ana"]),
        ("score=42", vec!["Ana"]),
        ("score=42&matchMode=exact", vec!["Ana"]),
        ("zone=bogotá", vec!["Bea"]),
        ("zone=BOGOTÁ%20NORTE&matchMode=exact", vec!["Bea"]),
        ("note=%22hola%22", vec!["Bea"]),
        ("note=dice%20%22hola%22&matchMode=exact", vec!["Bea"]),
        ("exists=zone", vec!["Cruz", "Bea"]),
        ("exists=score&tier=premi", vec!["Ana"]),
        ("exists=first_name&zone=cali", vec!["Cruz"]),
        ("tier=nothing", vec![]),
    ] {
        assert_eq!(names(&host.get(&format!("/api/contacts?{query}"), &token).await), expected, "{query}");
    }
}

/// `contains` ignores accents as it ignores case, as `search` does: a name
/// typed without its tilde finds the contact; `exact` compares as stored.
#[tokio::test]
async fn contains_filters_ignore_accents_and_exact_ones_do_not() {
    let (host, token) = seeded().await;
    for (query, expected) in [
        ("lastName=gomez", vec!["Ana"]),
        ("lastName=GOMEZ", vec!["Ana"]),
        ("lastName=G%C3%93MEZ", vec!["Ana"]),
        ("lastName=Go%CC%81mez", vec!["Ana"]),
        ("firstName=dario", vec!["Darío"]),
        ("city=medellin", vec!["Ana"]),
        ("city=bogota", vec!["Darío"]),
        ("company=bogota&city=bogota", vec!["Darío"]),
        ("lastName=gomes", vec![]),
        ("lastName=G%C3%B3mez&matchMode=exact", vec!["Ana"]),
        ("lastName=Gomez&matchMode=exact", vec![]),
        ("city=Medellin&matchMode=exact", vec![]),
    ] {
        assert_eq!(names(&host.get(&format!("/api/contacts?{query}"), &token).await), expected, "{query}");
    }
}

#[tokio::test]
async fn missing_and_exists() {
    let (host, token) = seeded().await;
    assert_eq!(names(&host.get("/api/contacts?missing=email", &token).await), ["Carla"]);
    assert_eq!(names(&host.get("/api/contacts?exists=company", &token).await), ["Darío", "Ana"]);
    let comma = names(&host.get("/api/contacts?missing=plan,company", &token).await);
    assert_eq!(comma, names(&host.get("/api/contacts?missing=plan&missing=company", &token).await));
    assert!(comma.is_empty(), "everyone has a plan or a company: {comma:?}");
    assert_eq!(names(&host.get("/api/contacts?missing=company", &token).await), ["Eva", "Carla", "Bruno"]);
    assert_eq!(names(&host.get("/api/contacts?exists=plan&missing=cityCode", &token).await), ["Eva"]);
}

#[tokio::test]
async fn sorting_and_creation_dates() {
    let (host, token) = seeded().await;
    assert_eq!(
        names(&host.get("/api/contacts?sortOrder=asc", &token).await),
        ["Ana", "Bruno", "Carla", "Darío", "Eva"]
    );
    // Updating Ana moves her to the front by updatedAt.
    host.post("/api/contacts", &token, &json!({ "email": "ana@acme.co", "tier": "B" })).await;
    let by_update = names(&host.get("/api/contacts?sortBy=updatedAt", &token).await);
    assert_eq!(by_update, ["Ana", "Eva", "Darío", "Carla", "Bruno"], "each contact once, the updated one first");
    let all = host.get("/api/contacts?sortOrder=asc", &token).await.json();
    let created: Vec<String> =
        all["data"].as_array().unwrap().iter().map(|c| c["createdAt"].as_str().unwrap().to_string()).collect();
    let from = &created[1];
    let r = host.get(&format!("/api/contacts?createdFrom={from}&createdTo={}&sortOrder=asc", created[3]), &token).await;
    assert_eq!(names(&r), ["Bruno", "Carla", "Darío"], "both bounds inclusive");
    let today = &created[0][..10];
    let r = host.get(&format!("/api/contacts?createdTo={today}"), &token).await;
    assert_eq!(r.json()["pagination"]["total"], 0, "a date-only createdTo is midnight UTC, not the end of the day");
    let r = host.get(&format!("/api/contacts?createdFrom={today}"), &token).await;
    assert_eq!(r.json()["pagination"]["total"], 5);
    for bad in ["sortBy=name", "sortOrder=up", "matchMode=regex", "createdFrom=yesterday"] {
        assert_eq!(host.get(&format!("/api/contacts?{bad}"), &token).await.status, 400, "{bad}");
    }
}

/// Pages far past the end answer at once, empty, with the true pagination; no
/// client number wraps (on a 32-bit component, page 2^31 times limit 2 once
/// wrapped to zero).
#[tokio::test]
async fn pages_far_past_the_end_are_empty_and_never_wrap() {
    let (host, token) = seeded().await;
    for page in ["2147483648", "2147483649", "4294967296", "9007199254740991"] {
        for query in ["", "&plan=gold", "&search=acme", "&cityCode=05001", "&createdFrom=2020-01-01"] {
            let started = std::time::Instant::now();
            let r = host.get(&format!("/api/contacts?page={page}&limit=2{query}"), &token).await;
            assert_eq!(r.status, 200, "page {page}{query}: {}", r.text);
            assert!(
                started.elapsed() < std::time::Duration::from_secs(10),
                "page {page}{query} took {:?}",
                started.elapsed()
            );
            let body = r.json();
            assert_eq!(body["data"], json!([]), "page {page}{query}");
            assert_eq!(body["pagination"]["page"], json!(page.parse::<u64>().unwrap()), "page {page}{query}");
            assert_eq!(body["pagination"]["limit"], 2);
        }
    }
    let r = host.get("/api/contacts?page=2147483649&limit=2", &token).await.json();
    assert_eq!(r["pagination"], json!({ "total": 5, "page": 2147483649u64, "limit": 2, "pages": 3 }));
    let r = host.get("/api/contacts?page=9007199254740992", &token).await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert_eq!(r.json()["code"], "VALIDATION_ERROR");
    assert_eq!(r.json()["details"]["field"], "page");
}
