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

    let list = host.get("/api/companies?search=city", &token).await.json();
    assert_eq!(list["pagination"]["total"], 2);
    let id = list["data"][0]["id"].as_str().unwrap().to_string();
    let r = host.call(Method::PUT, &format!("/api/companies/{id}"), Some(&token), Some(&json!({ "city": "" }))).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["data"]["cityCode"], "", "an empty city clears the location");
    let r = host.get(&format!("/api/companies/{id}"), &token).await;
    assert_eq!(r.json()["data"]["name"], list["data"][0]["name"]);
}
