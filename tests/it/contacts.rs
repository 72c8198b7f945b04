//! The contacts module through the real host: upsert rules 1–10, get, put.

use crm_tests::*;

async fn setup() -> (Host, String) {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    (host, token)
}

async fn upsert(host: &Host, token: &str, body: Value) -> Reply {
    host.post("/api/contacts", token, &body).await
}

#[tokio::test]
async fn create_answers_201_flattened_then_the_same_email_updates_with_200_unflattened() {
    let (host, token) = setup().await;
    let r = upsert(&host, &token, json!({ "email": "  ana@acme.co ", "first_name": "Ana", "cityCode": "05001" })).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let body = r.json();
    assert_eq!(body["success"], true);
    assert!(body["message"].is_string());
    let data = &body["data"];
    let id = data["id"].as_str().unwrap().to_string();
    assert_eq!(data["email"], "ana@acme.co", "trimmed");
    assert_eq!(data["firstName"], "Ana");
    assert_eq!(data["fullName"], "Ana");
    assert_eq!(
        (&data["city"], &data["cityCode"], &data["state"], &data["stateCode"]),
        (&json!("Medellín"), &json!("05001"), &json!("Antioquia"), &json!("05"))
    );
    assert_eq!(data["leadScore"], 0);
    assert_eq!(data["tags"], json!([]));
    assert_eq!(data["attribution"], Value::Null);
    assert!(data["createdAt"].as_str().unwrap().ends_with('Z'));
    assert!(body.get("duplicate").is_none() && data.get("duplicate").is_none());

    let r = upsert(&host, &token, json!({ "email": "ana@acme.co", "lastName": "Gómez" })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let body = r.json();
    assert!(body.get("duplicate").is_none());
    assert!(body["message"].is_string());
    let contact = &body["contact"];
    assert_eq!(contact["_id"], id);
    assert_eq!(contact["organizationId"], host.demo_org.clone().unwrap());
    let props = contact["properties"].as_array().unwrap();
    let prop = |k: &str| props.iter().find(|p| p["key"] == k).map(|p| p["value"].clone());
    assert_eq!(prop("lastName"), Some(json!("Gómez")));
    assert_eq!(prop("firstName"), Some(json!("Ana")), "other fields are kept");
    assert_eq!(prop("cityCode"), Some(json!("05001")), "no location sent: location untouched");
    assert!(props.iter().all(|p| p["isVisible"] == true));
    assert!(contact["leadScore"].is_number() && contact["createdAt"].is_string() && contact["updatedAt"].is_string());
}

#[tokio::test]
async fn lookup_is_case_sensitive_email_then_mobile_digits() {
    let (host, token) = setup().await;
    let first = upsert(&host, &token, json!({ "email": "Ana@acme.co", "whatsapp_phone": "+57 300-123-4567" })).await;
    assert_eq!(first.status, 201);
    assert_eq!(first.json()["data"]["mobile"], "573001234567", "digits only");
    // Another case of the email is another contact.
    let other = upsert(&host, &token, json!({ "email": "ana@acme.co" })).await;
    assert_eq!(other.status, 201);
    // The mobile, written differently, finds the first one.
    let by_mobile = upsert(&host, &token, json!({ "mobile": "57 (300) 123 4567", "firstName": "Ana" })).await;
    assert_eq!(by_mobile.status, 200, "{}", by_mobile.text);
    assert_eq!(by_mobile.json()["contact"]["_id"], first.json()["data"]["id"]);
}

#[tokio::test]
async fn a_colombian_mobile_is_one_contact_with_or_without_the_country_code() {
    let (host, token) = setup().await;
    // What a web form gets, then what WhatsApp sends, then the international dialling form.
    let first = upsert(&host, &token, json!({ "mobile": "300 765 4321", "firstName": "Luz" })).await;
    assert_eq!(first.status, 201, "{}", first.text);
    let id = first.json()["data"]["id"].clone();
    for (key, number) in
        [("whatsapp_phone", "573007654321"), ("mobile", "+57 300 765 4321"), ("mobile", "0057 3007654321")]
    {
        let again = upsert(&host, &token, json!({ key: number })).await;
        assert_eq!(again.status, 200, "{number}: {}", again.text);
        assert_eq!(again.json()["contact"]["_id"], id, "{number}");
    }
    // Started from the long form, the short one finds it too.
    let long = upsert(&host, &token, json!({ "whatsapp_phone": "573109998877" })).await;
    assert_eq!(long.status, 201, "{}", long.text);
    let short = upsert(&host, &token, json!({ "mobile": "310 999 8877" })).await;
    assert_eq!(short.status, 200, "{}", short.text);
    assert_eq!(short.json()["contact"]["_id"], long.json()["data"]["id"]);
    // Other numbers keep all their digits: 57 before nine digits is not a country code.
    let nine = upsert(&host, &token, json!({ "mobile": "57300765432" })).await;
    assert_eq!(nine.status, 201, "{}", nine.text);
    let abroad = upsert(&host, &token, json!({ "mobile": "+1 300 765 4321" })).await;
    assert_eq!(abroad.status, 201, "{}", abroad.text);
    let total = host.get("/api/contacts", &token).await.json()["pagination"]["total"].clone();
    assert_eq!(total, 4);
}

/// A mobile is digits and the separators people write in them; a letter is
/// refused rather than dropped (`300-ABC-1234` is not `3001234`).
#[tokio::test]
async fn a_mobile_with_letters_is_refused_not_shortened() {
    let (host, token) = setup().await;
    for number in ["300-ABC-1234", "tel:3001234567", "3001234567 ext 2", "٣٠٠١٢٣٤٥٦٧"] {
        let r = upsert(&host, &token, json!({ "mobile": number })).await;
        assert_eq!(
            (r.status.as_u16(), r.json()["code"].clone(), r.json()["details"]["field"].clone()),
            (400, json!("VALIDATION_ERROR"), json!("mobile")),
            "{number}: {}",
            r.text
        );
    }
    let r = upsert(&host, &token, json!({ "whatsapp_phone": "+57 (300) 123-4567" })).await;
    assert_eq!((r.status.as_u16(), r.json()["data"]["mobile"].clone()), (201, json!("573001234567")), "{}", r.text);
    let r = upsert(&host, &token, json!({ "mobile": "300.123.4567" })).await;
    assert_eq!(r.status, 200, "the same number: {}", r.text);
    assert_eq!(host.get("/api/contacts", &token).await.json()["pagination"]["total"], 1);
}

#[tokio::test]
async fn an_email_mobile_or_conversation_is_required() {
    let (host, token) = setup().await;
    let r = upsert(&host, &token, json!({ "firstName": "Nobody" })).await;
    assert_eq!(r.status, 400);
    let body = r.json();
    assert_eq!(body["success"], false);
    assert!(body["error"].as_str().unwrap().contains("email"));
    let list = host.get("/api/contacts", &token).await.json();
    assert_eq!(list["pagination"]["total"], 0, "nothing written");
}

#[tokio::test]
async fn the_plan_limit_is_checked_before_the_lookup() {
    let host = Host::start().await;
    let (_, token) = host.org_with_token(json!({ "name": "Tiny", "limits": { "contacts": 2 } })).await;
    assert_eq!(upsert(&host, &token, json!({ "email": "a@x.co" })).await.status, 201);
    assert_eq!(upsert(&host, &token, json!({ "email": "b@x.co" })).await.status, 201);
    let r = upsert(&host, &token, json!({ "email": "c@x.co" })).await;
    assert_eq!(r.status, 403);
    assert_eq!(r.json()["code"], "PLAN_LIMIT_REACHED");
    let r = upsert(&host, &token, json!({ "email": "a@x.co", "firstName": "A" })).await;
    assert_eq!(r.status, 403, "even an update of an existing contact is blocked at the limit");
}

#[tokio::test]
async fn cities_resolve_strictly_and_nothing_is_written_on_failure() {
    let (host, token) = setup().await;
    let r = upsert(&host, &token, json!({ "email": "a@x.co", "city": "Villanueva" })).await;
    assert_eq!(r.status, 422);
    let body = r.json();
    assert_eq!((body["error"].clone(), body["code"].clone()), (json!("CITY_UNRESOLVED"), json!("CITY_UNRESOLVED")));
    assert_eq!(body["status"], "ambiguous");
    assert_eq!(body["input"], "Villanueva");
    assert_eq!(body["candidates"].as_array().unwrap().len(), 4);
    assert_eq!(
        body["candidates"][0].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["code", "shortName", "stateName", "stateCode"]
    );
    let r = upsert(&host, &token, json!({ "email": "a@x.co", "city": "Medelin" })).await;
    assert_eq!((r.status.as_u16(), r.json()["status"].clone()), (422, json!("fuzzy")));
    assert_eq!(r.json()["candidates"][0]["code"], "05001");
    let r = upsert(&host, &token, json!({ "email": "a@x.co", "city": "Springfield" })).await;
    assert_eq!((r.status.as_u16(), r.json()["status"].clone()), (422, json!("none")));
    let r = upsert(&host, &token, json!({ "email": "a@x.co", "cityCode": "99999" })).await;
    assert_eq!(r.status, 400);
    let body = r.json();
    assert_eq!(
        (body["code"].clone(), body["status"].clone(), body["candidates"].clone()),
        (json!("INVALID_CITY_CODE"), json!("invalid_code"), json!([]))
    );
    assert_eq!(host.get("/api/contacts", &token).await.json()["pagination"]["total"], 0, "nothing written");

    // The state hint disambiguates; a sent stateCode is ignored (always computed).
    let r = upsert(
        &host,
        &token,
        json!({ "email": "a@x.co", "city": "villanueva", "state": "Casanare", "stateCode": "99" }),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let data = r.json()["data"].clone();
    assert_eq!(
        (data["cityCode"].clone(), data["stateCode"].clone(), data["city"].clone()),
        (json!("85440"), json!("85"), json!("Villanueva"))
    );
}

#[tokio::test]
async fn cities_as_people_write_them_resolve_when_they_name_one_place() {
    let (host, token) = setup().await;
    for (i, (city, state, code)) in [
        ("Bogotá", "Cundinamarca", "11001"),
        ("Medellín, Antioquia", "", "05001"),
        ("Cali - Valle", "", "76001"),
        ("Bogotá D.C., Colombia", "", "11001"),
        ("Villanueva", "Valle", ""),
        ("San Andrés", "San Andrés y Providencia", "88001"),
        // Abbreviations and the short forms of addresses and labels.
        ("Pto. Asís", "", "86568"),
        ("Cúcuta", "Nte. de Santander", "54001"),
        ("Carmen de Viboral", "Antioquia", "05148"),
        ("B/quilla", "", "08001"),
    ]
    .into_iter()
    .enumerate()
    {
        let body = json!({ "email": format!("p{i}@x.co"), "city": city, "state": state });
        let r = upsert(&host, &token, body).await;
        if code.is_empty() {
            // No Villanueva in Valle del Cauca: the state sent is taken, and disagrees.
            assert_eq!((r.status.as_u16(), r.json()["status"].clone()), (422, json!("ambiguous")), "{city}");
            assert_eq!(r.json()["candidates"].as_array().unwrap().len(), 4, "{city}");
            continue;
        }
        assert_eq!(r.status, 201, "{city}, {state}: {}", r.text);
        assert_eq!(r.json()["data"]["cityCode"], code, "{city}, {state}");
    }

    // One place that is not in the state sent: said so, with that place to pick.
    let r = upsert(&host, &token, json!({ "email": "q@x.co", "city": "Medellín", "state": "Cundinamarca" })).await;
    assert_eq!((r.status.as_u16(), r.json()["status"].clone()), (422, json!("ambiguous")));
    assert_eq!(r.json()["message"], "The city is not in the state sent: resend with a cityCode from candidates");
    assert_eq!(r.json()["candidates"][0]["code"], "05001");
    // A city inside longer text is offered, never chosen.
    let r = upsert(&host, &token, json!({ "email": "q@x.co", "city": "Chapinero, Bogotá" })).await;
    assert_eq!((r.status.as_u16(), r.json()["status"].clone()), (422, json!("fuzzy")));
    assert_eq!(r.json()["candidates"][0]["code"], "11001");
}

#[tokio::test]
async fn a_foreign_country_keeps_the_city_as_text() {
    let (host, token) = setup().await;
    let r = upsert(&host, &token, json!({ "email": "q@x.ec", "city": "Quito", "country": "Ecuador" })).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let data = r.json()["data"].clone();
    assert_eq!(
        (data["city"].clone(), data["cityCode"].clone(), data["stateCode"].clone()),
        (json!("Quito"), json!(""), json!(""))
    );
    assert_eq!(data["country"], "Ecuador");
    // Colombia however written is a Colombian city, stored with the catalog's names.
    for (i, written) in ["CO", "col", "colombia", "Colombia"].into_iter().enumerate() {
        let r =
            upsert(&host, &token, json!({ "email": format!("c{i}@x.co"), "city": "cali", "country": written })).await;
        assert_eq!(r.status, 201, "{}", r.text);
        let data = r.json()["data"].clone();
        assert_eq!(
            (&data["city"], &data["cityCode"], &data["country"]),
            (&json!("Cali"), &json!("76001"), &json!("Colombia"))
        );
    }
}

#[tokio::test]
async fn company_ids_must_be_valid_and_of_this_organization() {
    let (host, token) = setup().await;
    let r = upsert(&host, &token, json!({ "email": "a@x.co", "companyId": "nope" })).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"], "Invalid companyId");
    let r = upsert(&host, &token, json!({ "email": "a@x.co", "companyId": "aaaaaaaaaaaaaaaaaaaaaaaa" })).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"], "Company not found or does not belong to this organization");
    // Another organization's company is not found either.
    let (_, other) = host.org_with_token(json!({ "name": "Other" })).await;
    let theirs = host.post("/api/companies", &other, &json!({ "name": "Theirs" })).await.json()["data"]["id"].clone();
    let r = upsert(&host, &token, json!({ "email": "a@x.co", "companyId": theirs })).await;
    assert_eq!(r.json()["error"], "Company not found or does not belong to this organization");
    let ours = host.post("/api/companies", &token, &json!({ "name": "Acme SAS" })).await.json()["data"]["id"].clone();
    let r = upsert(&host, &token, json!({ "email": "a@x.co", "companyId": ours })).await;
    assert_eq!(r.status, 201);
    assert_eq!((r.json()["data"]["companyId"].clone(), r.json()["data"]["company"].clone()), (ours, json!("Acme SAS")));
}

#[tokio::test]
async fn identity_documents_map_and_validate() {
    let (host, token) = setup().await;
    for (n, (id_type, number, code, stored)) in [
        ("CC", "1020304050", "13", "1020304050"),
        ("C.C.", "52.123.456", "13", "52123456"),
        ("cédula de extranjería", "123456", "22", "123456"),
        ("NIT", "900123456-8", "31", "900123456-8"),
        ("31", "9001234568", "31", "900123456-8"),
        ("nit", "900.123.456-8", "31", "900123456-8"),
        ("RUT", "900123456 8", "31", "900123456-8"),
        ("pasaporte", "ab123456", "41", "AB123456"),
        ("PPT", "1234567", "48", "1234567"),
    ]
    .into_iter()
    .enumerate()
    {
        let r = upsert(&host, &token, json!({ "email": format!("d{n}@x.co"), "idType": id_type, "idNumber": number }))
            .await;
        assert_eq!(r.status, 201, "{id_type} {number}: {}", r.text);
        assert_eq!(
            (r.json()["data"]["idType"].clone(), r.json()["data"]["idNumber"].clone()),
            (json!(code), json!(stored)),
            "{id_type}"
        );
    }
    for (id_type, number) in [("NIT", "900123456-7"), ("CC", "12ab"), ("CC", "123"), ("TI", "12345")] {
        let r = upsert(&host, &token, json!({ "email": "bad@x.co", "idType": id_type, "idNumber": number })).await;
        assert_eq!(r.status, 400, "{id_type} {number}");
        let body = r.json();
        assert_eq!((body["code"].clone(), body["field"].clone()), (json!("INVALID_ID_NUMBER"), json!("idNumber")));
    }
    let r = upsert(&host, &token, json!({ "email": "bad@x.co", "idType": "cedula rara", "idNumber": "1" })).await;
    assert_eq!(r.status, 422);
    let body = r.json();
    assert_eq!(
        (body["code"].clone(), body["error"].clone()),
        (json!("ID_TYPE_UNRESOLVED"), json!("ID_TYPE_UNRESOLVED"))
    );
    assert!(body["candidates"].as_array().is_some_and(|c| !c.is_empty()), "a hint gives candidates");
    let r = upsert(&host, &token, json!({ "email": "bad@x.co", "idType": "zzz" })).await;
    assert_eq!(r.status, 422);
    assert!(r.json().get("candidates").is_none(), "no hint, no candidates");
}

#[tokio::test]
async fn conversations_link_once() {
    let (host, token) = setup().await;
    let org = host.demo_org.clone().unwrap();
    let conv = host
        .admin(
            Method::POST,
            &format!("/admin/orgs/{org}/conversations"),
            Some(&json!({ "channel": "whatsapp", "name": "Lead" })),
        )
        .await;
    assert_eq!(conv.status, 201, "{}", conv.text);
    let conv = conv.json()["id"].as_str().unwrap().to_string();
    // A conversation alone is enough to create a lead.
    let a = upsert(&host, &token, json!({ "linkedConversationId": conv, "firstName": "Lead" })).await;
    assert_eq!(a.status, 201, "{}", a.text);
    let a_id = a.json()["data"]["id"].clone();
    let r = upsert(&host, &token, json!({ "email": "b@x.co", "linkedConversationId": conv })).await;
    assert_eq!(r.status, 409);
    assert_eq!(
        (r.json()["code"].clone(), r.json()["contactId"].clone()),
        (json!("CONVERSATION_ALREADY_LINKED"), a_id.clone())
    );
    let r =
        upsert(&host, &token, json!({ "email": "c@x.co", "linkedConversationId": "aaaaaaaaaaaaaaaaaaaaaaaa" })).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (404, json!("CONVERSATION_NOT_FOUND")));
    let total = host.get("/api/contacts", &token).await.json()["pagination"]["total"].clone();
    assert_eq!(total, 1, "nothing written by the refused calls");
    // A newer conversation, not linked: each row shows its own contact.
    let body = json!({ "channel": "whatsapp", "name": "Nadie" });
    assert_eq!(host.admin(Method::POST, &format!("/admin/orgs/{org}/conversations"), Some(&body)).await.status, 201);
    let list = host.get("/api/conversations", &token).await.json();
    assert_eq!(list["pagination"]["total"], 2);
    assert_eq!((&list["data"][0]["name"], &list["data"][0]["contact"]), (&json!("Nadie"), &Value::Null));
    assert_eq!(list["data"][1]["contactId"], a_id);
    assert_eq!(list["data"][1]["contact"]["fullName"], "Lead");
}

#[tokio::test]
async fn clients_cannot_write_server_owned_fields() {
    let (host, token) = setup().await;
    let r = upsert(
        &host,
        &token,
        json!({ "email": "a@x.co", "_id": "evil", "id": "evil", "organizationId": "evil", "leadScore": 99,
                "createdAt": "2000-01-01T00:00:00.000Z", "stateCode": "99", "favoriteColor": "blue" }),
    )
    .await;
    assert_eq!(r.status, 201);
    let data = r.json()["data"].clone();
    assert_ne!(data["id"], "evil");
    assert_eq!(data["leadScore"], 0);
    assert_ne!(data["createdAt"], "2000-01-01T00:00:00.000Z");
    assert_eq!(data["stateCode"], "");
    assert_eq!(data["favoriteColor"], "blue", "other string keys are custom properties");
}

#[tokio::test]
async fn get_and_put_by_id() {
    let (host, token) = setup().await;
    let id =
        upsert(&host, &token, json!({ "email": "a@x.co", "city": "Cali", "idType": "CC", "idNumber": "12345678" }))
            .await
            .json()["data"]["id"]
            .as_str()
            .unwrap()
            .to_string();
    let r = host.get(&format!("/api/contacts/{id}"), &token).await;
    assert_eq!((r.status.as_u16(), r.json()["data"]["cityCode"].clone()), (200, json!("76001")));
    assert_eq!(host.get("/api/contacts/aaaaaaaaaaaaaaaaaaaaaaaa", &token).await.status, 404);
    assert_eq!(host.get("/api/contacts/not-an-id", &token).await.status, 404);

    let put = |body: Value| {
        let (host, token, id) = (&host, &token, &id);
        async move { host.call(Method::PUT, &format!("/api/contacts/{id}"), Some(token), Some(&body)).await }
    };
    let r = put(json!({ "firstName": "Ana", "city": "Barranquilla" })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        (r.json()["data"]["cityCode"].clone(), r.json()["data"]["firstName"].clone()),
        (json!("08001"), json!("Ana"))
    );
    let r = put(json!({ "city": "Villanueva" })).await;
    assert_eq!(r.status, 422, "the same city rules");
    let r = put(json!({ "city": "" })).await;
    assert_eq!(r.status, 200);
    let data = r.json()["data"].clone();
    assert_eq!(
        (data["city"].clone(), data["cityCode"].clone(), data["state"].clone(), data["stateCode"].clone()),
        (json!(""), json!(""), json!(""), json!(""))
    );
    // Only an idType present in the request is evaluated; the stored one stays.
    let r = put(json!({ "firstName": "Ana María" })).await;
    assert_eq!(r.status, 200);
    let r = put(json!({ "idType": "zzz" })).await;
    assert_eq!(r.status, 422);
    let r = put(json!({ "idNumber": "12ab" })).await;
    assert_eq!(
        (r.status.as_u16(), r.json()["code"].clone()),
        (400, json!("INVALID_ID_NUMBER")),
        "validated against the stored type"
    );
}

/// A sync that sends what is stored changes nothing: no commit, and
/// `updatedAt` (and so `sortBy=updatedAt`) keeps the time of the last change.
#[tokio::test]
async fn an_update_that_changes_nothing_writes_nothing() {
    // Its commits are counted: without the search log's fold beside them.
    let host = Host::start_with(&NO_BACKGROUND_FOLD).await;
    let token = host.demo_token.clone().unwrap();
    let ana =
        json!({ "email": "ana@acme.co", "firstName": "Ana", "cityCode": "05001", "plan": "gold", "tags": ["vip"] });
    let created = upsert(&host, &token, ana.clone()).await.json()["data"].clone();
    let id = created["id"].as_str().unwrap().to_string();
    assert_eq!(upsert(&host, &token, json!({ "email": "bruno@acme.co", "firstName": "Bruno" })).await.status, 201);
    let newest_change = || async {
        let listed = host.get("/api/contacts?sortBy=updatedAt", &token).await.json();
        listed["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["firstName"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(newest_change().await, ["Bruno", "Ana"]);
    let put = |body: Value| {
        let (host, token, id) = (&host, &token, &id);
        async move { host.call(Method::PUT, &format!("/api/contacts/{id}"), Some(token), Some(&body)).await }
    };

    let commits = host.store_operations("batch_if").await;
    let again = upsert(&host, &token, ana.clone()).await;
    assert_eq!(again.status, 200, "{}", again.text);
    assert_eq!(again.json()["contact"]["updatedAt"], created["updatedAt"], "the same body again");
    let r = put(json!({ "firstName": "Ana", "city": "Medellín", "email": "" })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json()["data"], created, "the stored values again, and a blank email (not sent)");
    assert_eq!(host.store_operations("batch_if").await, commits, "neither wrote");
    assert_eq!(newest_change().await, ["Bruno", "Ana"]);

    let r = put(json!({ "plan": "silver" })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_ne!(r.json()["data"]["updatedAt"], created["updatedAt"], "a change moves updatedAt");
    assert_eq!(r.json()["data"]["plan"], "silver");
    assert_eq!(newest_change().await, ["Ana", "Bruno"]);
}

#[tokio::test]
async fn contact_routes_need_their_permissions() {
    let host = Host::start().await;
    let org = host.create_org(json!({ "name": "Acme" })).await;
    let reader = host.create_token(&org, &["contacts:read"]).await;
    let r = upsert(&host, &reader, json!({ "email": "a@x.co" })).await;
    assert_eq!(r.status, 403);
    assert_eq!(r.json()["requiredPermission"], "contacts:write");
    assert_eq!(host.get("/api/contacts", &reader).await.status, 200);
    let writer = host.create_token(&org, &["contacts:*"]).await;
    assert_eq!(upsert(&host, &writer, json!({ "email": "a@x.co" })).await.status, 201);
    let r = host.get("/api/companies", &writer).await;
    assert_eq!((r.status.as_u16(), r.json()["requiredPermission"].clone()), (403, json!("companies:read")));
}

#[tokio::test]
async fn malformed_bodies_are_400() {
    let (host, token) = setup().await;
    let r = host
        .request(Method::POST, "/api/contacts")
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .body("{oops")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "INVALID_JSON");
    let r = upsert(&host, &token, json!({ "email": 42 })).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("VALIDATION_ERROR")));
    let r = upsert(&host, &token, json!({ "email": "a@x.co", "nested": { "a": 1 } })).await;
    assert_eq!(r.status, 400);
}

/// RFC 8259 lets a parser ignore a UTF-8 byte-order mark, which PowerShell
/// and Notepad write first: every JSON door reads past it, component routes
/// (a create, a form submit, an import) as the host's own (the admin API).
#[tokio::test]
async fn a_json_body_may_start_with_a_byte_order_mark() {
    let (host, token) = setup().await;
    let org = host.demo_org.clone().unwrap();
    let with_bom = |json: &str| format!("\u{feff}{json}");
    let post = |url: String, bearer: &str, body: String| {
        host.client.post(url).bearer_auth(bearer).header("content-type", "application/json").body(body).send()
    };
    let r = post(format!("{}/api/contacts", host.api), &token, with_bom(r#"{"email":"bom@x.co"}"#)).await.unwrap();
    assert_eq!(r.status(), 201);
    assert_eq!(r.json::<Value>().await.unwrap()["data"]["email"], "bom@x.co");
    let rows = with_bom(r#"[{"email":"bom-row@x.co"}]"#);
    let r = post(format!("{}/api/import/contacts", host.api), &token, rows).await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap()["data"]["created"], 1);
    let form = host.admin(Method::POST, &format!("/admin/orgs/{org}/forms"), Some(&json!({ "name": "Web" }))).await;
    let r = post(
        format!("{}/api/forms/{}/submit", host.api, form.json()["id"].as_str().unwrap()),
        &token,
        with_bom(r#"{"correo":"bom-lead@x.co"}"#),
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 201);
    let r = post(
        format!("{}/admin/orgs/{org}/tokens", host.admin),
        ADMIN_TOKEN,
        with_bom(r#"{"name":"bom","permissions":["*"]}"#),
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 201);
    // Only one mark, and only first: a second is not JSON.
    let r = post(format!("{}/api/contacts", host.api), &token, with_bom(&with_bom("{}"))).await.unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "INVALID_JSON");
}

#[tokio::test]
async fn a_body_not_declared_json_is_refused_on_component_routes_as_on_host_routes() {
    let (host, token) = setup().await;
    let org = host.demo_org.clone().unwrap();
    let body = r#"{"email":"plain@x.co"}"#;
    for path in ["/api/contacts", "/api/companies"] {
        for content_type in [Some("text/plain"), None] {
            let mut req = host.request(Method::POST, path).bearer_auth(&token).body(body);
            if let Some(ct) = content_type {
                req = req.header("content-type", ct);
            }
            let r = req.send().await.unwrap();
            assert_eq!(r.status(), 400, "{path} {content_type:?}");
            let json = r.json::<Value>().await.unwrap();
            assert_eq!(json["code"], "UNSUPPORTED_CONTENT_TYPE", "{path}: {json}");
        }
    }
    // The host's own routes answer the same body with the same code and message.
    let admin = host
        .client
        .post(format!("{}/admin/orgs/{org}/tokens", host.admin))
        .bearer_auth(ADMIN_TOKEN)
        .header("content-type", "text/plain")
        .body(r#"{"name":"x","permissions":["*"]}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(admin.status(), 400);
    let admin = admin.json::<Value>().await.unwrap();
    let component = host
        .request(Method::POST, "/api/contacts")
        .bearer_auth(&token)
        .header("content-type", "text/plain")
        .body(body)
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!((&admin["code"], &admin["message"]), (&component["code"], &component["message"]));
    assert_eq!(host.get("/api/contacts", &token).await.json()["pagination"]["total"], 0, "nothing was created");
    // JSON with a charset, or a +json type, is JSON.
    let r = host
        .request(Method::POST, "/api/contacts")
        .bearer_auth(&token)
        .header("content-type", "application/json; charset=utf-8")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
}

#[tokio::test]
async fn an_email_of_one_contact_and_a_mobile_of_another_updates_the_email_s_contact() {
    let (host, token) = setup().await;
    let a = upsert(&host, &token, json!({ "email": "a@x.co", "firstName": "A" })).await.json()["data"]["id"].clone();
    let b =
        upsert(&host, &token, json!({ "email": "b@x.co", "mobile": "3001112233" })).await.json()["data"]["id"].clone();
    // Email first (rule 2): A is found and updated, with 200, never a 409.
    let r = upsert(&host, &token, json!({ "email": "a@x.co", "mobile": "300 111 2233", "lastName": "Ruiz" })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let contact = &r.json()["contact"];
    assert_eq!(contact["_id"], a);
    let props = contact["properties"].as_array().unwrap();
    let prop = |k: &str| props.iter().find(|p| p["key"] == k).map(|p| p["value"].clone());
    assert_eq!((prop("mobile"), prop("lastName")), (Some(json!("3001112233")), Some(json!("Ruiz"))));
    // The shared mobile is looked up as the contact that had it first: B.
    let r = upsert(&host, &token, json!({ "mobile": "3001112233", "company": "Acme" })).await;
    assert_eq!((r.status.as_u16(), r.json()["contact"]["_id"].clone()), (200, b.clone()));
    assert_eq!(host.get("/api/contacts", &token).await.json()["pagination"]["total"], 2);
    let listed = host.get("/api/contacts?mobile=3001112233&matchMode=exact", &token).await.json();
    assert_eq!(listed["pagination"]["total"], 2, "both contacts hold the number");
    // An email stays unique: a PUT cannot give A the email of B.
    let r = host
        .call(
            Method::PUT,
            &format!("/api/contacts/{}", a.as_str().unwrap()),
            Some(&token),
            Some(&json!({ "email": "b@x.co" })),
        )
        .await;
    assert_eq!(
        (r.status.as_u16(), r.json()["code"].clone(), r.json()["contactId"].clone()),
        (409, json!("CONTACT_CONFLICT"), b)
    );
}
