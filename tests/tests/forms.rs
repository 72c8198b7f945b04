//! Forms through the real host: the app's calls, both doors (token and
//! public, JSON, urlencoded and multipart), field mapping, the submission
//! rules (dedupe, city, first touch, deals, notifications, plan limit, double
//! click, honeypot), browsers (CORS, redirect, rate limit) and tenant
//! isolation.

use std::time::Duration;

use crm_tests::*;

/// A host, an organization with a `*` token, and helpers for its forms.
struct Site {
    host: Host,
    org: String,
    token: String,
}

impl Site {
    async fn open() -> Site {
        Site::open_with(&[]).await
    }

    async fn open_with(env: &[(&str, &str)]) -> Site {
        let host = Host::start_with(env).await;
        let (org, token) = host.org_with_token(json!({ "name": "Tienda" })).await;
        Site { host, org, token }
    }

    async fn admin(&self, method: Method, tail: &str, body: Option<&Value>) -> Reply {
        self.host.admin(method, &format!("/admin/orgs/{}/forms{tail}", self.org), body).await
    }

    /// A new form; returns (id, public key).
    async fn form(&self, body: Value) -> (String, String) {
        let r = self.admin(Method::POST, "", Some(&body)).await;
        assert_eq!(r.status, 201, "{}", r.text);
        let v = r.json();
        (v["id"].as_str().unwrap().to_string(), v["publicKey"].as_str().unwrap().to_string())
    }

    fn public_url(&self, id: &str, key: &str) -> String {
        format!("/api/v1/forms/submit/{id}?key={key}")
    }

    /// A public JSON submit.
    async fn public(&self, id: &str, key: &str, body: &Value) -> Reply {
        self.host.call(Method::POST, &self.public_url(id, key), None, Some(body)).await
    }

    /// A token-door submit.
    async fn submit(&self, id: &str, body: &Value) -> Reply {
        self.host.post(&format!("/api/forms/{id}/submit"), &self.token, body).await
    }

    async fn get(&self, path: &str) -> Value {
        let r = self.host.get(path, &self.token).await;
        assert_eq!(r.status, 200, "{path}: {}", r.text);
        r.json()
    }

    async fn total(&self, path: &str) -> Value {
        self.get(path).await["pagination"]["total"].clone()
    }
}

async fn send(req: reqwest::RequestBuilder) -> Reply {
    let r = req.send().await.expect("sent");
    let (status, headers) = (r.status(), r.headers().clone());
    Reply { status, headers, text: r.text().await.unwrap() }
}

#[tokio::test]
async fn the_app_creates_reads_changes_forms_and_rotates_their_key() {
    let site = Site::open().await;
    let r = site
        .admin(
            Method::POST,
            "",
            Some(&json!({ "name": " Contacto ", "createDeal": true, "notify": ["ventas@tienda.co"],
                          "allowedOrigins": ["https://Tienda.co/"], "redirectUrl": "https://tienda.co/gracias" })),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let form = r.json();
    let id = form["id"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 24);
    let key = form["publicKey"].as_str().unwrap().to_string();
    assert!(key.starts_with("pk_") && key.len() == 35, "{key}");
    assert_eq!(
        (&form["name"], &form["createDeal"], &form["notify"], &form["allowedOrigins"], &form["redirectUrl"]),
        (
            &json!("Contacto"),
            &json!(true),
            &json!(["ventas@tienda.co"]),
            &json!(["https://tienda.co"]),
            &json!("https://tienda.co/gracias")
        )
    );
    assert_eq!(site.admin(Method::GET, &format!("/{id}"), None).await.json(), form);
    let r = site.admin(Method::PATCH, &format!("/{id}"), Some(&json!({ "createDeal": false, "notify": [] }))).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        (&r.json()["createDeal"], &r.json()["notify"], &r.json()["name"]),
        (&json!(false), &json!([]), &json!("Contacto"))
    );

    let lead = json!({ "email": "rota@x.co" });
    assert_eq!(site.public(&id, &key, &lead).await.status, 201);
    let r = site.admin(Method::POST, &format!("/{id}/rotate-key"), None).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let new_key = r.json()["publicKey"].as_str().unwrap().to_string();
    assert_ne!(new_key, key);
    let r = site.public(&id, &key, &json!({ "email": "old@x.co" })).await;
    assert_eq!(
        (r.status.as_u16(), r.json()["code"].clone()),
        (401, json!("FORM_KEY_INVALID")),
        "the old key stops at once"
    );
    assert_eq!(site.public(&id, &new_key, &json!({ "email": "new@x.co" })).await.status, 201);

    // Bad fields are 400 naming the field; unknown forms are 404.
    for (body, field) in [
        (json!({}), "name"),
        (json!({ "name": "x", "notify": ["not-an-email"] }), "notify"),
        (json!({ "name": "x", "allowedOrigins": ["tienda.co"] }), "allowedOrigins"),
        (json!({ "name": "x", "redirectUrl": "javascript:alert(1)" }), "redirectUrl"),
        (json!({ "name": "x", "createDeal": "yes" }), "createDeal"),
        (json!({ "name": "x", "publicKey": "pk_mine" }), "publicKey"),
    ] {
        let r = site.admin(Method::POST, "", Some(&body)).await;
        assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("VALIDATION_ERROR")), "{body}");
        assert_eq!(r.json()["details"]["field"], field, "{body}");
    }
    let r = site.admin(Method::GET, "/0123456789abcdef01234567", None).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (404, json!("FORM_NOT_FOUND")));

    // The API reads forms with forms:read.
    let list = site.get("/api/forms").await;
    assert_eq!(list["pagination"]["total"], 1);
    assert_eq!(list["data"][0]["id"], id.as_str());
    assert_eq!(site.get(&format!("/api/forms/{id}")).await["data"]["publicKey"], new_key.as_str());
    let reader = site.host.create_token(&site.org, &["contacts:read"]).await;
    let r = site.host.get("/api/forms", &reader).await;
    assert_eq!((r.status.as_u16(), r.json()["requiredPermission"].clone()), (403, json!("forms:read")));
    let r = site.host.post(&format!("/api/forms/{id}/submit"), &reader, &lead).await;
    assert_eq!((r.status.as_u16(), r.json()["requiredPermission"].clone()), (403, json!("forms:write")));
}

#[tokio::test]
async fn both_doors_create_then_update_one_contact_with_the_mapped_fields() {
    let site = Site::open().await;
    let (id, key) = site.form(json!({ "name": "Contacto" })).await;
    let r = site
        .public(
            &id,
            &key,
            &json!({ "Nombre": "Ana María Gómez", "CORREO": "ana@x.co", "celular": "+57 300 123 4567",
                     "ciudad": "Medellín", "empresa": "Acme", "mensaje": "Quiero una cotización" }),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let body = r.json();
    assert_eq!(body["success"], true);
    assert!(body["message"].is_string());
    let data = body["data"].as_object().unwrap();
    assert_eq!(data.keys().collect::<Vec<_>>(), ["submissionId"], "no internal ids to a visitor");

    let contacts = site.get("/api/contacts").await;
    assert_eq!(contacts["pagination"]["total"], 1);
    let c = &contacts["data"][0];
    assert_eq!(
        (&c["firstName"], &c["lastName"], &c["email"], &c["mobile"], &c["company"], &c["cityCode"], &c["mensaje"]),
        (
            &json!("Ana"),
            &json!("María Gómez"),
            &json!("ana@x.co"),
            &json!("573001234567"),
            &json!("Acme"),
            &json!("05001"),
            &json!("Quiero una cotización")
        )
    );

    // The token door: the same email updates (200) and names the contact.
    let r = site.submit(&id, &json!({ "email": "ana@x.co", "first_name": "Ana", "apellidos": "Gómez" })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let data = &r.json()["data"];
    assert_eq!(data["contactId"], c["id"]);
    assert_eq!(data["dealId"], Value::Null, "this form opens no deal");
    assert!(data["submissionId"].is_string());
    // ...and by mobile alone, with or without the country code.
    let r = site.submit(&id, &json!({ "whatsapp": "310-123-4567" })).await;
    assert_eq!(r.status, 201, "another number is another contact: {}", r.text);
    for number in ["57 300 123 4567", "300-123-4567"] {
        let r = site.submit(&id, &json!({ "telefono": number })).await;
        assert_eq!((r.status.as_u16(), r.json()["data"]["contactId"].clone()), (200, c["id"].clone()), "{number}");
    }
    assert_eq!(site.total("/api/contacts").await, 2);
    assert_eq!(site.total(&format!("/api/forms/{id}/submissions")).await, 5);
}

#[tokio::test]
async fn an_html_form_posts_urlencoded_and_is_redirected_when_the_form_says() {
    let site = Site::open().await;
    let (plain, plain_key) = site.form(json!({ "name": "Plain" })).await;
    let (redirecting, redirect_key) =
        site.form(json!({ "name": "Web", "redirectUrl": "https://tienda.co/gracias" })).await;
    let post = |id: &str, key: &str, body: &str| {
        site.host
            .request(Method::POST, &site.public_url(id, key))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body.to_string())
    };
    let r = send(post(
        &plain,
        &plain_key,
        "nombre=Luis+P%C3%A9rez&correo=luis%40x.co&depto=Antioquia&municipio=Medell%C3%ADn",
    ))
    .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert!(r.json()["data"]["submissionId"].is_string());
    let c = &site.get("/api/contacts").await["data"][0];
    assert_eq!(
        (&c["firstName"], &c["lastName"], &c["email"], &c["cityCode"]),
        (&json!("Luis"), &json!("Pérez"), &json!("luis@x.co"), &json!("05001"))
    );
    // A group of checkboxes sends one name several times (`interes[]` in PHP's
    // way): every choice is kept.
    let r =
        send(post(&plain, &plain_key, "correo=luis%40x.co&interes=crm&interes=envios&temas[]=a&temas%5B%5D=b")).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let fields = &site.get(&format!("/api/forms/{plain}/submissions")).await["data"][0]["fields"];
    assert_eq!((&fields["interes"], &fields["temas"]), (&json!("crm, envios"), &json!("a, b")), "{fields}");
    assert_eq!(site.get("/api/contacts").await["data"][0]["interes"], "crm, envios");

    let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let r = client
        .post(format!("{}{}", site.host.api, site.public_url(&redirecting, &redirect_key)))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("email=web%40x.co")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "https://tienda.co/gracias");
    // JSON to the same form is answered as JSON.
    let r = site.public(&redirecting, &redirect_key, &json!({ "email": "js@x.co" })).await;
    assert_eq!(r.status, 201, "{}", r.text);
    // Anything else is refused, and writes nothing.
    let text =
        site.host.request(Method::POST, &site.public_url(&plain, &plain_key)).header("content-type", "text/plain");
    let r = send(text.body("email=x@x.co")).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("UNSUPPORTED_CONTENT_TYPE")));
    assert_eq!(site.total("/api/contacts").await, 3);
}

#[tokio::test]
async fn a_multipart_form_is_read_like_an_urlencoded_one_without_its_files() {
    let site = Site::open().await;
    let (id, key) = site.form(json!({ "name": "Web", "redirectUrl": "https://tienda.co/gracias" })).await;
    // What a browser sends for `enctype="multipart/form-data"` or `fetch` of a `FormData`.
    let body = |email: &str| {
        format!(
            "--XyZ\r\nContent-Disposition: form-data; name=\"nombre\"\r\n\r\nMarta Gómez\r\n\
             --XyZ\r\nContent-Disposition: form-data; name=\"correo\"\r\n\r\n{email}\r\n\
             --XyZ\r\nContent-Disposition: form-data; name=\"dpto\"\r\n\r\nAntioquia\r\n\
             --XyZ\r\nContent-Disposition: form-data; name=\"ciudad\"\r\n\r\nBello\r\n\
             --XyZ\r\nContent-Disposition: form-data; name=\"hoja_de_vida\"; filename=\"cv.pdf\"\r\n\
             Content-Type: application/pdf\r\n\r\n%PDF-1.4 not kept\r\n--XyZ--\r\n"
        )
    };
    let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let post = |accept: &str, body: String| {
        client
            .post(format!("{}{}", site.host.api, site.public_url(&id, &key)))
            .header("content-type", "multipart/form-data; boundary=XyZ")
            .header("accept", accept)
            .body(body)
    };
    // A browser without JavaScript is sent on to the thank-you page...
    let r = send(post("text/html,*/*", body("marta@x.co"))).await;
    assert_eq!(r.status, 303, "{}", r.text);
    assert_eq!(r.headers["location"], "https://tienda.co/gracias");
    let c = &site.get("/api/contacts").await["data"][0];
    assert_eq!(
        (&c["firstName"], &c["lastName"], &c["email"], &c["cityCode"]),
        (&json!("Marta"), &json!("Gómez"), &json!("marta@x.co"), &json!("05088"))
    );
    let fields = &site.get(&format!("/api/forms/{id}/submissions")).await["data"][0]["fields"];
    assert_eq!(fields["dpto"], "Antioquia");
    assert!(fields.get("hoja_de_vida").is_none(), "a file is not kept: {fields}");
    // ...and a script that asks for JSON gets JSON.
    let r = send(post("application/json", body("script@x.co"))).await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert!(r.json()["data"]["submissionId"].is_string());
    // A body that is not the multipart it claims is a 400 that writes nothing.
    for (content_type, broken) in [
        ("multipart/form-data; boundary=XyZ", "--XyZ\r\nContent-Disposition: form-data; name=\"email\"\r\n\r\nx@x.co"),
        ("multipart/form-data", "email=x@x.co"),
    ] {
        let r = send(
            client
                .post(format!("{}{}", site.host.api, site.public_url(&id, &key)))
                .header("content-type", content_type)
                .body(broken),
        )
        .await;
        assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("VALIDATION_ERROR")), "{}", r.text);
    }
    assert_eq!(site.total("/api/contacts").await, 2);
    assert_eq!(site.total(&format!("/api/forms/{id}/submissions")).await, 2);
}

#[tokio::test]
async fn every_alias_of_state_disambiguates_the_city_and_an_unresolved_city_leaves_nothing() {
    let site = Site::open().await;
    let (id, key) = site.form(json!({ "name": "Contacto", "createDeal": true, "notify": ["a@tienda.co"] })).await;
    for (i, (alias, state, code)) in [
        ("departamento", "Santander", "68872"),
        ("depto", "Bolívar", "13873"),
        ("dpto", "La Guajira", "44874"),
        ("estado", "Casanare", "85440"),
        ("state", "Santander", "68872"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut body = json!({ "email": format!("v{i}@x.co"), "ciudad": "Villanueva" });
        body[alias] = json!(state);
        let r = site.public(&id, &key, &body).await;
        assert_eq!(r.status, 201, "{alias}: {}", r.text);
        let c = &site.get(&format!("/api/contacts?email=v{i}@x.co&matchMode=exact")).await["data"][0];
        assert_eq!(c["cityCode"], code, "{alias}");
    }
    let before =
        (site.total("/api/contacts").await, site.total("/api/deals").await, site.total("/api/notifications").await);
    let submissions = site.total(&format!("/api/forms/{id}/submissions")).await;
    let r = site.public(&id, &key, &json!({ "email": "nowhere@x.co", "ciudad": "Villanueva" })).await;
    assert_eq!(r.status, 400, "{}", r.text);
    let body = r.json();
    assert_eq!(
        (&body["success"], &body["code"], &body["status"]),
        (&json!(false), &json!("CITY_UNRESOLVED"), &json!("ambiguous"))
    );
    assert!(body["message"].as_str().unwrap().contains("Villanueva"), "a message for the visitor");
    assert_eq!(body["candidates"].as_array().unwrap().len(), 4);
    assert!(body["candidates"][0]["code"].is_string());
    let r = site.submit(&id, &json!({ "email": "nowhere@x.co", "cityCode": "99999" })).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("CITY_UNRESOLVED")));
    let after =
        (site.total("/api/contacts").await, site.total("/api/deals").await, site.total("/api/notifications").await);
    assert_eq!(after, before, "no contact, no deal, no notification");
    assert_eq!(site.total(&format!("/api/forms/{id}/submissions")).await, submissions);

    let r = site.public(&id, &key, &json!({ "nombre": "Sin datos", "ciudad": "Cali" })).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("VALIDATION_ERROR")));
    assert!(r.json()["message"].as_str().unwrap().contains("correo"), "{}", r.text);
}

#[tokio::test]
async fn keys_forms_and_plans_guard_the_public_door() {
    let site = Site::open().await;
    let (id, key) = site.form(json!({ "name": "Contacto" })).await;
    let lead = json!({ "email": "k@x.co" });
    let r = site.host.call(Method::POST, &format!("/api/v1/forms/submit/{id}"), None, Some(&lead)).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (401, json!("FORM_KEY_MISSING")));
    let r = site.public(&id, "pk_00000000000000000000000000000000", &lead).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (401, json!("FORM_KEY_INVALID")));
    for unknown in ["0123456789abcdef01234567", "not-a-form"] {
        let r = site.public(unknown, &key, &lead).await;
        assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (404, json!("FORM_NOT_FOUND")), "{unknown}");
    }
    assert_eq!(site.total("/api/contacts").await, 0, "nothing written by the refused calls");

    // Another organization's key does not open this form.
    let (other_org, other_token) = site.host.org_with_token(json!({ "name": "Otra" })).await;
    let r = site
        .host
        .admin(Method::POST, &format!("/admin/orgs/{other_org}/forms"), Some(&json!({ "name": "Suya" })))
        .await;
    let (other_id, other_key) =
        (r.json()["id"].as_str().unwrap().to_string(), r.json()["publicKey"].as_str().unwrap().to_string());
    let r = site.public(&id, &other_key, &lead).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (401, json!("FORM_KEY_INVALID")));
    // ...and the other organization's token sees none of this one's forms.
    for path in [format!("/api/forms/{id}"), format!("/api/forms/{id}/submissions")] {
        let r = site.host.get(&path, &other_token).await;
        assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (404, json!("FORM_NOT_FOUND")), "{path}");
    }
    let r = site.host.post(&format!("/api/forms/{id}/submit"), &other_token, &lead).await;
    assert_eq!(r.status, 404);
    let r = site.host.admin(Method::GET, &format!("/admin/orgs/{}/forms/{other_id}", site.org), None).await;
    assert_eq!(r.status, 404, "the app sees a form only under its organization");

    // The forms module is required; the api module is not.
    let r = site
        .host
        .admin(Method::PATCH, &format!("/admin/orgs/{}", site.org), Some(&json!({ "modules": { "api": false } })))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(site.public(&id, &key, &lead).await.status, 201, "a public form is not the API");
    site.host
        .admin(
            Method::PATCH,
            &format!("/admin/orgs/{}", site.org),
            Some(&json!({ "modules": { "api": true, "forms": false } })),
        )
        .await;
    let r = site.public(&id, &key, &json!({ "email": "k2@x.co" })).await;
    assert_eq!(
        (r.status.as_u16(), r.json()["code"].clone(), r.json()["module"].clone()),
        (403, json!("PLAN_MODULE_REQUIRED"), json!("forms"))
    );
    let r = site.submit(&id, &json!({ "email": "k2@x.co" })).await;
    assert_eq!((r.status.as_u16(), r.json()["module"].clone()), (403, json!("forms")));

    // A deleted organization's forms are gone.
    assert_eq!(site.host.admin(Method::DELETE, &format!("/admin/orgs/{}", site.org), None).await.status, 204);
    let r = site.public(&id, &key, &json!({ "email": "k3@x.co" })).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (404, json!("FORM_NOT_FOUND")));
}

#[tokio::test]
async fn the_first_touch_is_kept_and_each_submission_keeps_its_own() {
    let site = Site::open().await;
    let (id, key) = site.form(json!({ "name": "Campaña" })).await;
    let r = site
        .host
        .request(Method::POST, &site.public_url(&id, &key))
        .header("referer", "https://tienda.co/landing?x=1")
        .json(&json!({ "email": "t@x.co", "utm_source": "google", "utm_medium": "cpc", "utm_campaign": "navidad",
                       "utm_term": "zapatos", "utm_content": "banner", "gclid": "G-1", "referrer": "https://google.com" }));
    assert_eq!(send(r).await.status, 201);
    let r = site.public(&id, &key, &json!({ "email": "t@x.co", "utm_source": "facebook", "fbclid": "F-1", "pageUri": "https://tienda.co/otra" })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let a = &site.get("/api/contacts").await["data"][0]["attribution"];
    assert_eq!(
        (
            &a["channel"],
            &a["formId"],
            &a["utmSource"],
            &a["utmMedium"],
            &a["utmCampaign"],
            &a["utmTerm"],
            &a["utmContent"]
        ),
        (
            &json!("form"),
            &json!(id),
            &json!("google"),
            &json!("cpc"),
            &json!("navidad"),
            &json!("zapatos"),
            &json!("banner")
        )
    );
    assert_eq!(
        (&a["gclid"], &a["fbclid"], &a["referrer"]),
        (&json!("G-1"), &Value::Null, &json!("https://google.com"))
    );
    assert_eq!(a["landingPage"], "https://tienda.co/landing?x=1", "the Referer is the page");
    assert!(a["firstTouchAt"].as_str().unwrap().ends_with('Z'));
    let subs = site.get(&format!("/api/forms/{id}/submissions")).await;
    let newest = &subs["data"][0];
    assert_eq!((&newest["status"], &newest["attribution"]["utmSource"]), (&json!("accepted"), &json!("facebook")));
    assert_eq!(
        (&newest["attribution"]["fbclid"], &newest["attribution"]["landingPage"]),
        (&json!("F-1"), &json!("https://tienda.co/otra"))
    );
    assert_eq!(newest["fields"]["utm_source"], "facebook", "fields as sent");
    assert_eq!(subs["data"][1]["attribution"]["utmSource"], "google");
    // A contact made by the API has no first touch; its first form submission gives it one.
    site.host.post("/api/contacts", &site.token, &json!({ "email": "api@x.co" })).await;
    site.public(&id, &key, &json!({ "email": "api@x.co", "utm_source": "mail" })).await;
    let c = &site.get("/api/contacts?email=api@x.co&matchMode=exact").await["data"][0];
    assert_eq!(c["attribution"]["utmSource"], "mail");
}

#[tokio::test]
async fn deals_open_once_per_contact_and_form_and_the_team_is_told() {
    let site = Site::open().await;
    let (id, key) = site
        .form(json!({ "name": "Cotización", "createDeal": true, "notify": ["ventas@tienda.co", "gerencia@tienda.co"] }))
        .await;
    let (other, other_key) = site.form(json!({ "name": "Otro", "createDeal": true })).await;
    let first = site.submit(&id, &json!({ "email": "d@x.co", "nombre": "Diana Ruiz" })).await;
    assert_eq!(first.status, 201, "{}", first.text);
    let (contact, deal) = (first.json()["data"]["contactId"].clone(), first.json()["data"]["dealId"].clone());
    assert!(deal.is_string());
    let again = site.public(&id, &key, &json!({ "email": "d@x.co", "mensaje": "¿Y el precio?" })).await;
    assert_eq!(again.status, 200);
    let second = site.submit(&id, &json!({ "email": "d@x.co", "mensaje": "hola" })).await;
    assert_eq!(second.json()["data"]["dealId"], deal, "one open deal per contact and form");
    let third = site.public(&other, &other_key, &json!({ "email": "d@x.co" })).await;
    assert_eq!(third.status, 200);

    let deals = site.get("/api/deals").await;
    assert_eq!(deals["pagination"]["total"], 2, "one per form");
    let d = site.get(&format!("/api/deals/{}", deal.as_str().unwrap())).await["data"].clone();
    assert_eq!(
        (&d["name"], &d["contactId"], &d["formId"], &d["stage"], &d["amount"]),
        (&json!("Cotización: Diana Ruiz"), &contact, &json!(id), &json!("new"), &Value::Null)
    );
    assert!(d["pipelineId"].as_str().unwrap().len() == 24 && d["createdAt"].is_string() && d["updatedAt"].is_string());
    assert_eq!(deals["data"][1]["pipelineId"], d["pipelineId"], "the organization's default pipeline");
    assert_eq!(site.total(&format!("/api/deals?contactId={}", contact.as_str().unwrap())).await, 2);
    assert_eq!(site.total(&format!("/api/deals?contactId={}&stage=new", contact.as_str().unwrap())).await, 2);
    assert_eq!(site.total("/api/deals?stage=new").await, 2);
    assert_eq!(site.total("/api/deals?stage=won").await, 0);
    assert_eq!(site.total("/api/deals?contactId=0123456789abcdef01234567").await, 0);
    let r = site.host.get("/api/deals?stage=nuevo", &site.token).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("VALIDATION_ERROR")));
    let r = site.host.get("/api/deals/0123456789abcdef01234567", &site.token).await;
    assert_eq!(r.status, 404);

    // Three accepted submissions of the notifying form, two addresses each, newest first.
    let notes = site.get("/api/notifications").await;
    assert_eq!(notes["pagination"]["total"], 6);
    let newest = &notes["data"][0];
    assert_eq!(
        (&newest["type"], &newest["formId"], &newest["submissionId"], &newest["contactId"], &newest["read"]),
        (&json!("form_submission"), &json!(id), &second.json()["data"]["submissionId"], &contact, &json!(false))
    );
    let recipients: Vec<&Value> = notes["data"].as_array().unwrap().iter().map(|n| &n["recipient"]).collect();
    assert_eq!(recipients.iter().filter(|r| **r == "ventas@tienda.co").count(), 3);
    assert_eq!(site.total("/api/notifications?page=2&limit=4").await, 6);
    assert_eq!(site.get("/api/notifications?page=2&limit=4").await["data"].as_array().unwrap().len(), 2);
    // A team member marks one read; nothing else of it changes.
    let note = format!("/api/notifications/{}", newest["id"].as_str().unwrap());
    let r = site.host.call(Method::PUT, &note, Some(&site.token), Some(&json!({ "read": true }))).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let mut expected = newest.clone();
    expected["read"] = json!(true);
    assert_eq!(r.json()["data"], expected);
    assert_eq!(site.get("/api/notifications").await["data"][0], expected);
    // The team's unread ones, and the read ones, each a list of its own.
    let unread = site.get("/api/notifications?read=false&limit=100").await;
    assert_eq!(unread["pagination"]["total"], 5);
    assert!(unread["data"].as_array().unwrap().iter().all(|n| n["read"] == false && n["id"] != expected["id"]));
    assert_eq!(unread["data"][0], notes["data"][1], "newest first");
    let read = site.get("/api/notifications?read=true").await;
    assert_eq!((&read["pagination"]["total"], &read["data"]), (&json!(1), &json!([expected])));
    for bad in ["maybe", ""] {
        let r = site.host.get(&format!("/api/notifications?read={bad}"), &site.token).await;
        assert_eq!((r.status.as_u16(), r.json()["details"]["field"].clone()), (400, json!("read")), "{bad:?}");
    }
    for (body, field) in [
        (json!({ "read": "yes" }), "read"),
        (json!({}), "read"),
        (json!({ "read": true, "recipient": "x@x.co" }), "recipient"),
    ] {
        let r = site.host.call(Method::PUT, &note, Some(&site.token), Some(&body)).await;
        assert_eq!((r.status.as_u16(), r.json()["details"]["field"].clone()), (400, json!(field)), "{}", r.text);
    }
    let reader = site.host.create_token(&site.org, &["notifications:read"]).await;
    let r = site.host.call(Method::PUT, &note, Some(&reader), Some(&json!({ "read": false }))).await;
    assert_eq!((r.status.as_u16(), r.json()["requiredPermission"].clone()), (403, json!("notifications:write")));
    let r = site
        .host
        .call(
            Method::PUT,
            "/api/notifications/0123456789abcdef01234567",
            Some(&site.token),
            Some(&json!({ "read": true })),
        )
        .await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (404, json!("NOTIFICATION_NOT_FOUND")));

    let reader = site.host.create_token(&site.org, &["forms:read"]).await;
    for (path, permission) in [("/api/deals", "deals:read"), ("/api/notifications", "notifications:read")] {
        let r = site.host.get(path, &reader).await;
        assert_eq!((r.status.as_u16(), r.json()["requiredPermission"].clone()), (403, json!(permission)));
    }
    let (_, other_token) = site.host.org_with_token(json!({ "name": "Otra" })).await;
    for path in ["/api/deals", "/api/notifications"] {
        let r = site.host.get(path, &other_token).await;
        assert_eq!(r.json()["pagination"]["total"], 0, "{path} of another organization");
    }
    let r = site.host.get(&format!("/api/deals/{}", deal.as_str().unwrap()), &other_token).await;
    assert_eq!(r.status, 404);
    let r = site.host.call(Method::PUT, &note, Some(&other_token), Some(&json!({ "read": false }))).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (404, json!("NOTIFICATION_NOT_FOUND")));
    assert_eq!(site.get("/api/notifications").await["data"][0]["read"], true, "another organization changed nothing");
    // Marked unread again, it is back in the unread list, once.
    let r = site.host.call(Method::PUT, &note, Some(&site.token), Some(&json!({ "read": false }))).await;
    assert_eq!(r.json()["data"]["read"], false, "{}", r.text);
    let r = site.host.call(Method::PUT, &note, Some(&site.token), Some(&json!({ "read": false }))).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(site.total("/api/notifications?read=false").await, 6);
    assert_eq!(site.total("/api/notifications?read=true").await, 0);
    assert_eq!(site.get("/api/notifications?read=false").await["data"][0]["id"], expected["id"]);
}

#[tokio::test]
async fn a_full_plan_refuses_the_contact_but_keeps_the_submission_findable_by_status() {
    let host = Host::start().await;
    let (org, token) = host.org_with_token(json!({ "name": "Chica", "limits": { "contacts": 1 } })).await;
    let r = host
        .admin(
            Method::POST,
            &format!("/admin/orgs/{org}/forms"),
            Some(&json!({ "name": "F", "createDeal": true, "notify": ["a@b.co"] })),
        )
        .await;
    let (id, key) = (r.json()["id"].as_str().unwrap().to_string(), r.json()["publicKey"].as_str().unwrap().to_string());
    let url = format!("/api/v1/forms/submit/{id}?key={key}");
    assert_eq!(host.call(Method::POST, &url, None, Some(&json!({ "email": "one@x.co" }))).await.status, 201);
    let r = host.call(Method::POST, &url, None, Some(&json!({ "email": "two@x.co", "nombre": "Dos" }))).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (403, json!("PLAN_LIMIT_REACHED")), "{}", r.text);
    let subs = host.get(&format!("/api/forms/{id}/submissions"), &token).await.json();
    assert_eq!(subs["pagination"]["total"], 2);
    let kept = &subs["data"][0];
    assert_eq!(
        (&kept["status"], &kept["fields"]["email"], &kept["contactId"]),
        (&json!("rejected"), &json!("two@x.co"), &Value::Null)
    );
    assert_eq!(kept["reason"]["code"], "PLAN_LIMIT_REACHED");
    assert_eq!(host.get("/api/contacts", &token).await.json()["pagination"]["total"], 1);
    assert_eq!(host.get("/api/deals", &token).await.json()["pagination"]["total"], 1);
    assert_eq!(host.get("/api/notifications", &token).await.json()["pagination"]["total"], 1);

    // The app finds the refused leads (and the bots) by status, with exact totals.
    let bot = json!({ "email": "bot@x.co", "_gotcha": "http://spam" });
    assert_eq!(host.call(Method::POST, &url, None, Some(&bot)).await.status, 201);
    let refused = json!({ "email": "three@x.co" });
    assert_eq!(host.call(Method::POST, &url, None, Some(&refused)).await.status, 403);
    let emails = |page: &Value| -> Vec<(Value, Value)> {
        page["data"].as_array().unwrap().iter().map(|s| (s["status"].clone(), s["fields"]["email"].clone())).collect()
    };
    let by_status = |status: &str, tail: &str| format!("/api/forms/{id}/submissions?status={status}{tail}");
    let rejected = host.get(&by_status("rejected", ""), &token).await.json();
    assert_eq!(
        (emails(&rejected), &rejected["pagination"]["total"]),
        (vec![(json!("rejected"), json!("three@x.co")), (json!("rejected"), json!("two@x.co"))], &json!(2))
    );
    let second = host.get(&by_status("rejected", "&limit=1&page=2"), &token).await.json();
    assert_eq!(
        (emails(&second), &second["pagination"]),
        (vec![(json!("rejected"), json!("two@x.co"))], &json!({ "total": 2, "page": 2, "limit": 1, "pages": 2 }))
    );
    let spam = host.get(&by_status("spam", ""), &token).await.json();
    assert_eq!((emails(&spam), &spam["pagination"]["total"]), (vec![(json!("spam"), json!("bot@x.co"))], &json!(1)));
    let accepted = host.get(&by_status("accepted", ""), &token).await.json();
    assert_eq!(
        (emails(&accepted), &accepted["pagination"]["total"]),
        (vec![(json!("accepted"), json!("one@x.co"))], &json!(1))
    );
    assert_eq!(host.get(&format!("/api/forms/{id}/submissions"), &token).await.json()["pagination"]["total"], 4);
    for bad in ["pending", ""] {
        let r = host.get(&by_status(bad, ""), &token).await;
        assert_eq!(
            (r.status.as_u16(), r.json()),
            (
                400,
                json!({ "success": false, "code": "VALIDATION_ERROR", "message": "status must be accepted, rejected or spam", "details": { "field": "status" } })
            )
        );
    }
}

#[tokio::test]
async fn a_double_click_is_answered_like_the_first_and_records_nothing_new() {
    let site = Site::open().await;
    let (id, key) = site.form(json!({ "name": "F", "createDeal": true, "notify": ["a@tienda.co"] })).await;
    let body = json!({ "email": "dc@x.co", "nombre": "Doble Clic" });
    let first = site.public(&id, &key, &body).await;
    let second = site.public(&id, &key, &body).await;
    assert_eq!(first.status, 201);
    assert_eq!((second.status, second.json()), (first.status, first.json()), "same status, same submissionId");
    let token_first = site.submit(&id, &body).await;
    let token_second = site.submit(&id, &body).await;
    assert_eq!(token_first.status, 200, "the token door is another door: {}", token_first.text);
    assert_eq!(token_second.json(), token_first.json());
    assert_eq!(site.total(&format!("/api/forms/{id}/submissions")).await, 2);
    assert_eq!(site.total("/api/notifications").await, 2);
    // Another body is another submission.
    assert_eq!(site.public(&id, &key, &json!({ "email": "dc@x.co", "nombre": "Otro" })).await.status, 200);
    assert_eq!(site.total(&format!("/api/forms/{id}/submissions")).await, 3);
}

#[tokio::test]
async fn the_honeypot_is_answered_like_a_new_lead_and_kept_as_spam() {
    let site = Site::open().await;
    let (id, key) = site.form(json!({ "name": "F", "createDeal": true, "notify": ["a@tienda.co"] })).await;
    let lead = site.public(&id, &key, &json!({ "email": "real@x.co" })).await;
    let bot = site.public(&id, &key, &json!({ "email": "bot@x.co", "_gotcha": "http://spam" })).await;
    assert_eq!(bot.status, lead.status);
    assert_eq!(bot.header("content-type"), lead.header("content-type"));
    let (mut a, mut b) = (lead.json(), bot.json());
    assert!(b["data"]["submissionId"].is_string());
    a["data"]["submissionId"] = Value::Null;
    b["data"]["submissionId"] = Value::Null;
    assert_eq!(a, b, "a bot cannot tell the difference");
    assert_eq!(site.total("/api/contacts").await, 1);
    assert_eq!(site.total("/api/deals").await, 1);
    assert_eq!(site.total("/api/notifications").await, 1);
    let subs = site.get(&format!("/api/forms/{id}/submissions")).await;
    assert_eq!((&subs["data"][0]["status"], &subs["data"][0]["contactId"]), (&json!("spam"), &Value::Null));
    // An empty honeypot is a person.
    assert_eq!(site.public(&id, &key, &json!({ "email": "p@x.co", "_gotcha": "" })).await.status, 201);
    assert_eq!(site.total("/api/contacts").await, 2);
    // Pages of the people skip the bot between them.
    let second = site.get(&format!("/api/forms/{id}/submissions?status=accepted&limit=1&page=2")).await;
    assert_eq!(
        (
            &second["data"][0]["fields"]["email"],
            &second["pagination"]["total"],
            second["data"].as_array().unwrap().len()
        ),
        (&json!("real@x.co"), &json!(2), 1)
    );
}

#[tokio::test]
async fn browsers_get_cors_from_allowed_origins_only() {
    let site = Site::open().await;
    let (id, key) = site.form(json!({ "name": "F", "allowedOrigins": ["https://tienda.co"] })).await;
    let (open, open_key) = site.form(json!({ "name": "Abierto" })).await;
    let preflight = |form: &str, origin: &str| {
        site.host
            .request(Method::OPTIONS, &format!("/api/v1/forms/submit/{form}"))
            .header("origin", origin)
            .header("access-control-request-method", "POST")
    };
    let r = send(preflight(&id, "https://tienda.co")).await;
    assert_eq!(r.status, 204);
    assert_eq!(r.header("access-control-allow-origin"), Some("https://tienda.co"));
    assert!(r.header("access-control-allow-methods").unwrap().contains("POST"));
    let r = send(preflight(&id, "https://evil.co")).await;
    assert_eq!(r.status, 403);
    assert!(r.headers.keys().all(|k| !k.as_str().starts_with("access-control-")), "{:?}", r.headers);
    let r = send(preflight(&open, "https://any.co")).await;
    assert_eq!((r.status.as_u16(), r.header("access-control-allow-origin")), (204, Some("https://any.co")));

    let post = |origin: &str| {
        site.host
            .request(Method::POST, &site.public_url(&id, &key))
            .header("origin", origin)
            .json(&json!({ "email": "o@x.co" }))
    };
    let r = send(post("https://evil.co")).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (403, json!("ORIGIN_NOT_ALLOWED")));
    assert!(r.header("access-control-allow-origin").is_none());
    assert_eq!(site.total("/api/contacts").await, 0, "nothing written");
    let r = send(post("https://tienda.co")).await;
    assert_eq!((r.status.as_u16(), r.header("access-control-allow-origin")), (201, Some("https://tienda.co")));
    // A server posting without Origin is not a browser: allowed.
    assert_eq!(site.public(&open, &open_key, &json!({ "email": "srv@x.co" })).await.status, 201);
}

#[tokio::test]
async fn submits_are_rate_limited_per_form_and_client_address() {
    let site = Site::open_with(&[("CRM_FORM_RATE_PER_MINUTE", "3"), ("CRM_TRUST_FORWARDED_FOR", "127.0.0.1")]).await;
    let (id, key) = site.form(json!({ "name": "F" })).await;
    let (other, other_key) = site.form(json!({ "name": "G" })).await;
    let from = |client: &str, form: &str, key: &str, i: usize| {
        site.host
            .request(Method::POST, &site.public_url(form, key))
            .header("x-forwarded-for", format!("{client}, 127.0.0.1"))
            .json(&json!({ "email": format!("r{i}-{client}@x.co") }))
    };
    well_inside_a_minute().await;
    for i in 0..3 {
        assert_eq!(send(from("203.0.113.7", &id, &key, i)).await.status, 201);
    }
    let r = send(from("203.0.113.7", &id, &key, 3)).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (429, json!("RATE_LIMITED")));
    assert!(r.header("retry-after").unwrap().parse::<u64>().unwrap() >= 1);
    // A hop the client wrote before its own address changes nothing: the
    // last hop before the trusted proxy is the client.
    let spoofed = site
        .host
        .request(Method::POST, &site.public_url(&id, &key))
        .header("x-forwarded-for", "not-an-address, 203.0.113.7, 127.0.0.1")
        .json(&json!({ "email": "spoof@x.co" }));
    assert_eq!(send(spoofed).await.status, 429);
    assert_eq!(send(from("198.51.100.9", &id, &key, 4)).await.status, 201, "another client");
    assert_eq!(send(from("203.0.113.7", &other, &other_key, 5)).await.status, 201, "another form");
    assert_eq!(site.total("/api/contacts").await, 5, "the refused one wrote nothing");
}

#[tokio::test]
async fn forwarded_for_is_ignored_from_untrusted_peers() {
    let site = Site::open_with(&[("CRM_FORM_RATE_PER_MINUTE", "2")]).await;
    let (id, key) = site.form(json!({ "name": "F" })).await;
    let mut statuses = Vec::new();
    well_inside_a_minute().await;
    for i in 0..3 {
        let r = site
            .host
            .request(Method::POST, &site.public_url(&id, &key))
            .header("x-forwarded-for", format!("198.51.100.{i}"))
            .json(&json!({ "email": format!("f{i}@x.co") }));
        statuses.push(send(r).await.status.as_u16());
    }
    assert_eq!(statuses, [201, 201, 429], "a client cannot pick its own address");
}

#[tokio::test]
async fn submissions_are_bounded() {
    let site = Site::open().await;
    let (id, key) = site.form(json!({ "name": "F" })).await;
    let mut many = serde_json::Map::new();
    many.insert("email".into(), json!("b@x.co"));
    for i in 0..100 {
        many.insert(format!("f{i}"), json!("x"));
    }
    let r = site.public(&id, &key, &Value::Object(many)).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("VALIDATION_ERROR")), "101 fields");
    let r = site.public(&id, &key, &json!({ "email": "b@x.co", "mensaje": "x".repeat(10 * 1024 + 1) })).await;
    assert_eq!((r.status.as_u16(), r.json()["details"]["field"].clone()), (400, json!("mensaje")));
    let r = site.public(&id, &key, &json!({ "email": "b@x.co", "a": "x".repeat(9000), "b": "x".repeat(9000), "c": "x".repeat(9000),
        "d": "x".repeat(9000), "e": "x".repeat(9000), "f": "x".repeat(9000), "g": "x".repeat(9000), "h": "x".repeat(9000) })).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (413, json!("PAYLOAD_TOO_LARGE")));
    let r = site.public(&id, &key, &json!({ "email": "b@x.co", "nested": { "a": 1 } })).await;
    assert_eq!(r.status, 400);
    assert_eq!(site.total("/api/contacts").await, 0);
    // Extra fields a contact cannot hold stay on the submission; the lead is kept.
    let mut wide = serde_json::Map::new();
    wide.insert("email".into(), json!("wide@x.co"));
    for i in 0..60 {
        wide.insert(format!("campo{i}"), json!("y".repeat(300)));
    }
    let r = site.public(&id, &key, &Value::Object(wide)).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let sub = &site.get(&format!("/api/forms/{id}/submissions")).await["data"][0];
    assert_eq!(sub["fields"].as_object().unwrap().len(), 61);
    assert_eq!(site.total("/api/contacts").await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn thirty_concurrent_submissions_of_one_new_email_make_one_contact_and_one_deal() {
    let site = Site::open().await;
    let (id, key) = site.form(json!({ "name": "F", "createDeal": true })).await;
    let url = format!("{}{}", site.host.api, site.public_url(&id, &key));
    let mut tasks = Vec::new();
    for i in 0..30 {
        let (client, url) = (site.host.client.clone(), url.clone());
        tasks.push(tokio::spawn(async move {
            let r = client
                .post(url)
                .json(&json!({ "email": "rush@x.co", "nombre": format!("Visitante {i}") }))
                .send()
                .await
                .unwrap();
            r.status().as_u16()
        }));
    }
    let mut statuses = Vec::new();
    for t in tasks {
        statuses.push(t.await.unwrap());
    }
    assert_eq!(statuses.iter().filter(|s| **s == 201).count(), 1, "{statuses:?}");
    assert!(statuses.iter().all(|s| *s == 200 || *s == 201), "{statuses:?}");
    assert_eq!(site.total("/api/contacts").await, 1);
    assert_eq!(site.total("/api/deals").await, 1);
    assert_eq!(site.total(&format!("/api/forms/{id}/submissions")).await, 30);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twins_posted_at_once_get_one_answer_and_leave_one_submission() {
    let site = Site::open().await;
    let (id, key) = site.form(json!({ "name": "F", "createDeal": true, "notify": ["a@tienda.co"] })).await;
    let url = format!("{}{}", site.host.api, site.public_url(&id, &key));
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let (client, url) = (site.host.client.clone(), url.clone());
        tasks.push(tokio::spawn(async move {
            let r = client.post(url).json(&json!({ "email": "twin@x.co", "nombre": "Gemela" })).send().await.unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }));
    }
    let mut answers = Vec::new();
    for t in tasks {
        answers.push(t.await.unwrap());
    }
    assert!(answers.iter().all(|a| *a == answers[0]), "{answers:?}");
    assert_eq!(answers[0].0, 201);
    assert_eq!(site.total(&format!("/api/forms/{id}/submissions")).await, 1);
    assert_eq!(site.total("/api/contacts").await, 1);
    assert_eq!(site.total("/api/deals").await, 1);
    assert_eq!(site.total("/api/notifications").await, 1);
}

#[tokio::test]
async fn a_deal_moves_between_stages_and_winning_it_closes_it() {
    let site = Site::open().await;
    let (id, _) = site.form(json!({ "name": "Cotización", "createDeal": true })).await;
    let first = site.submit(&id, &json!({ "email": "m@x.co" })).await;
    let deal = first.json()["data"]["dealId"].as_str().unwrap().to_string();
    let put = |body: Value| {
        let (site, deal) = (&site, &deal);
        async move { site.host.call(Method::PUT, &format!("/api/deals/{deal}"), Some(&site.token), Some(&body)).await }
    };

    let r = put(json!({ "stage": "qualified", "amount": 1_500_000, "name": "Cotización grande" })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let moved = r.json()["data"].clone();
    assert_eq!(
        (&moved["stage"], &moved["amount"], &moved["name"]),
        (&json!("qualified"), &json!(1_500_000.0), &json!("Cotización grande"))
    );
    assert_ne!(moved["updatedAt"], moved["createdAt"]);
    assert_eq!(site.get(&format!("/api/deals/{deal}")).await["data"], moved, "stored as answered");
    assert_eq!(
        (site.total("/api/deals?stage=new").await, site.total("/api/deals?stage=qualified").await),
        (json!(0), json!(1))
    );

    // Refused, and nothing changes.
    for (body, field) in [
        (json!({ "stage": "nuevo" }), "stage"),
        (json!({ "amount": -1 }), "amount"),
        (json!({ "name": " " }), "name"),
        (json!({ "contactId": "0123456789abcdef01234567" }), "contactId"),
    ] {
        let r = put(body.clone()).await;
        assert_eq!((r.status.as_u16(), r.json()["details"]["field"].clone()), (400, json!(field)), "{body}");
    }
    assert_eq!(site.get(&format!("/api/deals/{deal}")).await["data"], moved);

    // Won: closed, so the contact's next submission opens a new deal; the
    // won one cannot reopen while that one is open.
    assert_eq!(put(json!({ "stage": "won" })).await.status, 200);
    let again = site.submit(&id, &json!({ "email": "m@x.co", "mensaje": "otra vez" })).await;
    let newer = again.json()["data"]["dealId"].clone();
    assert!(newer.is_string() && newer != json!(deal), "{}", again.text);
    let r = put(json!({ "stage": "proposal" })).await;
    assert_eq!(
        (r.status.as_u16(), r.json()["code"].clone(), r.json()["dealId"].clone()),
        (409, json!("DEAL_CONFLICT"), newer)
    );
    assert_eq!(
        (site.total("/api/deals?stage=won").await, site.total("/api/deals?stage=new").await),
        (json!(1), json!(1))
    );

    // Permissions and organizations.
    let reader = site.host.create_token(&site.org, &["deals:read"]).await;
    let r = site
        .host
        .call(Method::PUT, &format!("/api/deals/{deal}"), Some(&reader), Some(&json!({ "stage": "lost" })))
        .await;
    assert_eq!((r.status.as_u16(), r.json()["requiredPermission"].clone()), (403, json!("deals:write")));
    let (_, other) = site.host.org_with_token(json!({ "name": "Otra" })).await;
    let r = site
        .host
        .call(Method::PUT, &format!("/api/deals/{deal}"), Some(&other), Some(&json!({ "stage": "lost" })))
        .await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (404, json!("DEAL_NOT_FOUND")));
    assert_eq!(site.get(&format!("/api/deals/{deal}")).await["data"]["stage"], "won");
}

/// The `at` of each double click's answer a stopped host keeps for the form.
fn double_click_answers(data_dir: &std::path::Path, org: &str, form: &str) -> Vec<u64> {
    let (ns, prefix) = (crm_store::Namespace::org(org), format!("m/forms/dd/{form}/"));
    backend::with_store(data_dir, move |store| {
        let entries = store.scan(&ns, prefix.as_bytes(), None, usize::MAX).unwrap();
        entries.iter().map(|(_, v)| serde_json::from_slice::<Value>(v).unwrap()["at"].as_u64().unwrap()).collect()
    })
}

fn now_millis() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64
}

/// A double click's answer outlives its 30 s window only until later
/// submissions sweep it (after a minute, for hosts whose clocks differ); a
/// fresh answer is never swept.
#[tokio::test]
async fn expired_double_click_answers_are_swept_by_later_submissions() {
    const LEADS: usize = 100;
    let dir = tempfile::tempdir().unwrap();
    let no_rate = [("CRM_FORM_RATE_PER_MINUTE", "0")];
    let host = Host::start_in(dir.path(), &no_rate).await;
    let (org, token) = host.org_with_token(json!({ "name": "Tienda" })).await;
    let site = Site { host, org, token };
    let (id, key) = site.form(json!({ "name": "F" })).await;
    let lead = |batch: &str, i: usize| json!({ "email": format!("{batch}{i}@x.co"), "nombre": "Lead" });
    let first = site.public(&id, &key, &lead("old", 0)).await;
    assert_eq!(first.status, 201, "{}", first.text);
    for i in 1..LEADS {
        assert_eq!(site.public(&id, &key, &lead("old", i)).await.status, 201);
    }
    let old_done = now_millis();
    let Site { mut host, org, token } = site;
    assert!(host.terminate());
    assert_eq!(double_click_answers(dir.path(), &org, &id).len(), LEADS, "kept while fresh");

    tokio::time::sleep(Duration::from_millis((old_done + 61_000).saturating_sub(now_millis()))).await;
    host = Host::start_in(dir.path(), &no_rate).await;
    let site = Site { host, org, token };
    let fresh_from = now_millis();
    let again = site.public(&id, &key, &lead("old", 0)).await;
    assert_eq!(again.status, 200, "past the window the same body is a new submission: {}", again.text);
    assert_ne!(again.json()["data"]["submissionId"], first.json()["data"]["submissionId"]);
    let new_first = site.public(&id, &key, &lead("new", 0)).await;
    for i in 1..LEADS {
        assert_eq!(site.public(&id, &key, &lead("new", i)).await.status, 201);
    }
    let twin = site.public(&id, &key, &lead("new", 0)).await;
    assert_eq!((twin.status, twin.json()), (new_first.status, new_first.json()), "a fresh answer stays");
    let Site { mut host, org, .. } = site;
    assert!(host.terminate());

    let answers = double_click_answers(dir.path(), &org, &id);
    let (fresh, expired): (Vec<u64>, Vec<u64>) = answers.iter().partition(|at| **at >= fresh_from);
    assert_eq!(fresh.len(), LEADS + 1, "every answer of the last minute is kept");
    assert!(expired.len() < LEADS / 2, "{} of {} expired answers are left", expired.len(), LEADS - 1);
}
