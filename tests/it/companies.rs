//! Companies: the three city forms and their errors, get, list, put.

use crm_tests::*;

#[tokio::test]
async fn the_three_city_forms_and_their_errors() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    let create = |body: Value| {
        let (host, token) = (&host, &token);
        async move { host.post("/api/companies", token, &body).await }
    };
    let r = create(json!({ "name": "By code", "cityCode": "76001" })).await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!((r.json()["data"]["city"].clone(), r.json()["data"]["stateCode"].clone()), (json!("Cali"), json!("76")));
    let r = create(json!({ "name": "City and state", "city": "Villanueva", "state": "La Guajira" })).await;
    assert_eq!(r.json()["data"]["cityCode"], "44874");
    let r = create(json!({ "name": "City alone", "city": "cucuta" })).await;
    assert_eq!(r.json()["data"]["cityCode"], "54001");
    let r = create(json!({ "name": "Ambiguous", "city": "Villanueva" })).await;
    assert_eq!(
        (r.status.as_u16(), r.json()["code"].clone(), r.json()["status"].clone()),
        (422, json!("CITY_UNRESOLVED"), json!("ambiguous"))
    );
    let r = create(json!({ "name": "Bad code", "cityCode": "00000" })).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("INVALID_CITY_CODE")));
    let r = create(json!({ "cityCode": "76001" })).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("VALIDATION_ERROR")), "a name is required");
    // Custom properties follow the contacts' rule: a name of 1 to 64 of [A-Za-z0-9_.-], a bounded text.
    for (key, value) in [("", json!("x")), ("sector económico", json!("x")), ("x", json!("v".repeat(2001)))] {
        let mut body = json!({ "name": "Props" });
        body[key] = value;
        let r = create(body).await;
        assert_eq!((r.status.as_u16(), r.json()["details"]["field"].clone()), (400, json!(key)), "{key:?}");
    }
    let mut body = json!({ "name": "Props" });
    for i in 0..51 {
        body[format!("p{i}")] = json!(i);
    }
    assert_eq!(create(body).await.status, 400, "at most 50 custom properties a request");

    let list = host.get("/api/companies?search=city", &token).await.json();
    assert_eq!(list["pagination"]["total"], 2);
    let id = list["data"][0]["id"].as_str().unwrap().to_string();
    let r = host.call(Method::PUT, &format!("/api/companies/{id}"), Some(&token), Some(&json!({ "city": "" }))).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["data"]["cityCode"], "", "an empty city clears the location");
    let r = host.get(&format!("/api/companies/{id}"), &token).await;
    assert_eq!(r.json()["data"]["name"], list["data"][0]["name"]);
}

#[tokio::test]
async fn a_company_s_document_follows_the_contacts_rule() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    let r = host
        .post("/api/companies", &token, &json!({ "name": "Acme SAS", "idType": "NIT", "idNumber": "900123456-7" }))
        .await;
    assert_eq!(
        (r.status.as_u16(), r.json()["code"].clone(), r.json()["field"].clone()),
        (400, json!("INVALID_ID_NUMBER"), json!("idNumber"))
    );
    let r = host
        .post("/api/companies", &token, &json!({ "name": "Acme SAS", "idType": "RUT", "idNumber": "900.123.456-8" }))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let data = r.json()["data"].clone();
    assert_eq!((&data["idType"], &data["idNumber"]), (&json!("31"), &json!("900123456-8")));
    let id = data["id"].as_str().unwrap().to_string();
    // A number alone is checked against the stored type; an unknown type is 422.
    let put = |body: Value| {
        let (host, token, path) = (&host, &token, format!("/api/companies/{id}"));
        async move { host.call(Method::PUT, &path, Some(token), Some(&body)).await }
    };
    assert_eq!(put(json!({ "idNumber": "900123456-1" })).await.json()["code"], "INVALID_ID_NUMBER");
    let r = put(json!({ "idType": "carnet" })).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (422, json!("ID_TYPE_UNRESOLVED")));
    let r = host.get(&format!("/api/companies/{id}"), &token).await;
    assert_eq!(
        (&r.json()["data"]["idType"], &r.json()["data"]["idNumber"]),
        (&json!("31"), &json!("900123456-8")),
        "nothing refused was written"
    );
    let r = host.post("/api/companies", &token, &json!({ "name": "Sin documento" })).await;
    assert_eq!((&r.json()["data"]["idType"], &r.json()["data"]["idNumber"]), (&Value::Null, &Value::Null));
}

/// The names of the companies `search=term` lists.
async fn found(host: &Host, token: &str, term: &str) -> Vec<String> {
    let r = host.get(&format!("/api/companies?search={term}"), token).await;
    r.json()["data"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap().to_string()).collect()
}

/// A number in a company's name is searched as contacts' are, without the
/// separators written in it, on both sides.
#[tokio::test]
async fn search_finds_a_number_in_a_name_however_it_is_written() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    for name in ["Tienda 24-7", "Calle 100 Ltda", "Ferretería 3.000"] {
        assert_eq!(host.post("/api/companies", &token, &json!({ "name": name })).await.status, 201);
    }
    for (term, name) in
        [("24-7", "Tienda 24-7"), ("247", "Tienda 24-7"), ("3000", "Ferretería 3.000"), ("3.000", "Ferretería 3.000")]
    {
        assert_eq!(found(&host, &token, term).await, [name], "{term}");
    }
    assert_eq!(found(&host, &token, "calle%20100").await, ["Calle 100 Ltda"]);
}

/// `sas` finds `S.A.S.`: a company's initialisms are searched with and
/// without their dots; the term as typed.
#[tokio::test]
async fn search_finds_initialisms_without_their_dots() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    for name in ["Distribuciones Acme S.A.S.", "Acme SAS", "Almacenes Éxito S.A.", "Acme.com.co", "Tienda Sas.Co"] {
        assert_eq!(host.post("/api/companies", &token, &json!({ "name": name })).await.status, 201);
    }
    for (term, names) in [
        ("acme%20sas", &["Acme SAS", "Distribuciones Acme S.A.S."][..]),
        ("s.a.s", &["Distribuciones Acme S.A.S."]),
        ("exito%20sa", &["Almacenes Éxito S.A."]),
        ("EXITO%20S.A", &["Almacenes Éxito S.A."]),
        ("acmecom", &[]),
        ("sasco", &[]),
    ] {
        assert_eq!(found(&host, &token, term).await, names, "{term}");
    }
}

#[tokio::test]
async fn search_finds_a_company_without_case_or_accents_even_one_saved_before() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Host::start_in(dir.path(), &[]).await;
    let token = host.demo_token.clone().unwrap();
    for name in ["Café Gómez Ltda", "Distribuidora Núñez", "Acme"] {
        assert_eq!(host.post("/api/companies", &token, &json!({ "name": name })).await.status, 201);
    }
    for (term, name) in [
        ("gomez", "Café Gómez Ltda"),
        ("G%C3%93MEZ", "Café Gómez Ltda"),
        ("cafe", "Café Gómez Ltda"),
        ("caf%C3%A9", "Café Gómez Ltda"),
        ("nunez", "Distribuidora Núñez"),
    ] {
        assert_eq!(found(&host, &token, term).await, [name], "{term}");
    }
    // A company as an earlier version stored it, with the folded name it
    // kept beside its name then: read as before, found by its name alone.
    let org = host.demo_org.clone().unwrap();
    assert!(host.terminate().await);
    backend::with_store(dir.path(), move |store| {
        let ns = crm_store::Namespace::org(&org);
        let (key, value) = store.scan_reverse(&ns, b"m/contacts/company/", None, 1).unwrap().remove(0);
        let mut old: Value = serde_json::from_slice(&value).unwrap();
        assert_eq!(old.get("searchName"), None, "no longer stored");
        old["name"] = json!("Panadería Ñapa");
        old["searchName"] = json!("zzz");
        store.batch(&ns, vec![crm_store::BatchOp::Put(key, serde_json::to_vec(&old).unwrap())]).unwrap();
    });
    let host = Host::start_in(dir.path(), &[]).await;
    assert_eq!(found(&host, &token, "panaderia").await, ["Panadería Ñapa"]);
    assert_eq!(found(&host, &token, "N%CC%83apa").await, ["Panadería Ñapa"], "a decomposed accent");
    assert!(found(&host, &token, "zzz").await.is_empty());
    let id = host.get("/api/companies?search=napa", &token).await.json()["data"][0]["id"].as_str().unwrap().to_string();
    let r = host.get(&format!("/api/companies/{id}"), &token).await;
    assert_eq!((r.status.as_u16(), r.json()["data"].get("searchName")), (200, None));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn lists_page_newest_first_across_the_store_s_chunks() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    // 1,250 companies: more than one chunk of the walk (1,000).
    let mut tasks = Vec::new();
    for batch in 0..10 {
        let (client, url, token) = (host.client.clone(), format!("{}/api/companies", host.api), token.clone());
        tasks.push(tokio::spawn(async move {
            let mut ids = Vec::new();
            for i in (batch * 125)..(batch * 125 + 125) {
                let name = if i % 5 == 0 { format!("Acme {i}") } else { format!("Other {i}") };
                let r = client.post(&url).bearer_auth(&token).json(&json!({ "name": name })).send().await.unwrap();
                assert_eq!(r.status(), 201);
                ids.push(r.json::<Value>().await.unwrap()["data"]["id"].as_str().unwrap().to_string());
            }
            ids
        }));
    }
    let mut ids = Vec::new();
    for t in tasks {
        ids.extend(t.await.unwrap());
    }
    ids.sort();
    let newest_first: Vec<String> = ids.into_iter().rev().collect();
    let page = |q: &str| {
        let (host, token, q) = (&host, &token, q.to_string());
        async move { host.get(&format!("/api/companies?{q}"), token).await.json() }
    };
    let first = page("limit=100").await;
    assert_eq!(first["pagination"], json!({ "total": 1250, "page": 1, "limit": 100, "pages": 13 }));
    let shown: Vec<&str> = first["data"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(shown, newest_first[..100].iter().map(String::as_str).collect::<Vec<_>>());
    // A page that straddles the walk's first chunk, and the last page.
    let straddle = page("limit=100&page=10").await;
    let shown: Vec<&str> = straddle["data"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(shown, newest_first[900..1000].iter().map(String::as_str).collect::<Vec<_>>());
    let last = page("limit=100&page=13").await;
    assert_eq!(last["data"].as_array().unwrap().len(), 50);
    assert_eq!(last["data"][49]["id"], newest_first[1249].as_str());
    assert_eq!(page("limit=100&page=14").await["data"], json!([]));
    // Search counts every match, across chunks.
    let acme = page("search=acme&limit=1000").await;
    assert_eq!(acme["pagination"]["total"], 250);
    assert!(acme["data"].as_array().unwrap().iter().all(|c| c["name"].as_str().unwrap().starts_with("Acme")));
}

/// A search reads each company's stored bytes before decoding it: a name
/// whose lowercase is not the ASCII fold of its bytes (`İ`), or that JSON
/// writes escaped, is still found, in any case.
#[tokio::test]
async fn search_finds_names_in_any_case_whatever_their_stored_form() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    for name in ["ACME Ltda", "XİZ Ltda", "Bodega \"El Sol\"", "Otra"] {
        let r = host.post("/api/companies", &token, &json!({ "name": name })).await;
        assert_eq!(r.status, 201, "{}", r.text);
    }
    let names = |q: &'static str| {
        let (host, token) = (&host, &token);
        async move {
            let list = host.get(&format!("/api/companies?search={q}"), token).await.json();
            list["data"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap().to_string()).collect::<Vec<_>>()
        }
    };
    assert_eq!(names("acme").await, ["ACME Ltda"]);
    assert_eq!(names("xi").await, ["XİZ Ltda"], "\"xİz\".to_lowercase() holds \"xi\"");
    assert_eq!(names("%22el%20sol%22").await, ["Bodega \"El Sol\""]);
    assert_eq!(names("LTDA").await, ["XİZ Ltda", "ACME Ltda"]);
    assert!(names("nadie").await.is_empty());
}
