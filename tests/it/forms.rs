//! Forms through the real host, up to the submission: the app's calls, both
//! doors (token and public; JSON, urlencoded and multipart), field mapping,
//! the city rule, the public key and the plan, browsers (CORS, redirect, rate
//! limit) and bounds. What a submission leaves behind is in `form_leads.rs`.

use crm_tests::site::{Site, send};
use crm_tests::*;

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

    // A form builder's webhook sends the labels people read (Elementor's).
    let labels = json!({ "Nombre completo": "Julián Ríos", "Correo electrónico": "julian@x.co",
                         "Número de WhatsApp": "300 222 3344", "Teléfono fijo": "(601) 555 1234",
                         "Empresa / Compañía": "Ríos S.A.S.", "Ciudad de residencia": "Tunja", "Mensaje": "Hola" });
    assert_eq!(site.public(&id, &key, &labels).await.status, 201);
    let c = &site.get("/api/contacts?search=julian@x.co").await["data"][0];
    assert_eq!(
        (&c["firstName"], &c["lastName"], &c["mobile"], &c["phone"], &c["company"], &c["cityCode"], &c["Mensaje"]),
        (
            &json!("Julián"),
            &json!("Ríos"),
            &json!("3002223344"),
            &json!("(601) 555 1234"),
            &json!("Ríos S.A.S."),
            &json!("15001"),
            &json!("Hola")
        ),
        "{c}"
    );
}

/// A form that asks for an identity document gives it to the contact,
/// through the contacts module's rule: the type people write becomes its
/// DIAN code, and a number its type refuses is told to the visitor.
#[tokio::test]
async fn a_form_gives_the_contact_its_identity_document() {
    let site = Site::open().await;
    let (id, key) = site.form(json!({ "name": "Crédito" })).await;
    let lead = json!({ "correo": "doc@x.co", "Tipo de documento": "Cédula", "Número de documento": "1020304050" });
    assert_eq!(site.public(&id, &key, &lead).await.status, 201);
    let c = &site.get("/api/contacts").await["data"][0];
    assert_eq!((&c["idType"], &c["idNumber"]), (&json!("13"), &json!("1020304050")));

    for (lead, status, code, message) in [
        (
            json!({ "correo": "nit@x.co", "tipo_documento": "NIT", "nit": "900123456-7" }),
            400,
            "INVALID_ID_NUMBER",
            "Revisa tu número de documento: no es válido para su tipo.",
        ),
        (
            json!({ "correo": "xx@x.co", "tipo_documento": "Carné", "documento": "1" }),
            422,
            "ID_TYPE_UNRESOLVED",
            "No reconocemos el tipo de documento. Elige uno de la lista.",
        ),
    ] {
        let r = site.public(&id, &key, &lead).await;
        assert_eq!(
            (r.status.as_u16(), &r.json()["code"], &r.json()["message"]),
            (status, &json!(code), &json!(message))
        );
        // The token door answers as the contacts API does.
        let r = site.submit(&id, &lead).await;
        assert_eq!((r.status.as_u16(), &r.json()["code"]), (status, &json!(code)), "{}", r.text);
        assert_ne!(r.json()["message"], json!(message));
    }
    let r =
        site.public(&id, &key, &json!({ "correo": "nit@x.co", "tipo_documento": "NIT", "nit": "900123456-8" })).await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(site.total("/api/contacts").await, 2, "nothing refused was written");
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
    // WordPress Contact Form 7's own field names, with the fields it and a
    // captcha add: those stay on the submission, not on the contact.
    let cf7 = "_wpcf7=42&_wpcf7_version=5.9&_wpcf7_unit_tag=wpcf7-f42-o1&_wpnonce=ab12&\
               your-name=Rosa+Le%C3%B3n&your-email=rosa%40x.co&your-phone=3015556677&\
               your-subject=Cotizaci%C3%B3n&g-recaptcha-response=03AFcWeA";
    assert_eq!(send(post(&plain, &plain_key, cf7)).await.status, 201);
    let rosa = &site.get("/api/contacts").await["data"][0];
    assert_eq!(
        (&rosa["firstName"], &rosa["lastName"], &rosa["email"], &rosa["mobile"], &rosa["your-subject"]),
        (&json!("Rosa"), &json!("León"), &json!("rosa@x.co"), &json!("3015556677"), &json!("Cotización"))
    );
    for machinery in ["_wpcf7", "_wpcf7_version", "_wpcf7_unit_tag", "_wpnonce", "g-recaptcha-response"] {
        assert_eq!(rosa.get(machinery), None, "{machinery}: {rosa}");
    }
    let fields = &site.get(&format!("/api/forms/{plain}/submissions")).await["data"][0]["fields"];
    assert_eq!((&fields["_wpcf7"], &fields["g-recaptcha-response"]), (&json!("42"), &json!("03AFcWeA")), "{fields}");

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
    assert_eq!(site.total("/api/contacts").await, 4);
}

/// A page served as ISO-8859-1 posts its forms in that charset, and a
/// browser does not say so in the `Content-Type`: the fields are read as
/// windows-1252 when they are not UTF-8, or in the charset a `_charset_`
/// field or the `Content-Type` names.
#[tokio::test]
async fn a_form_posted_in_latin1_is_read_in_its_charset() {
    let site = Site::open().await;
    let (id, key) = site.form(json!({ "name": "Vieja" })).await;
    let post = |content_type: &str, body: Vec<u8>| {
        site.host.request(Method::POST, &site.public_url(&id, &key)).header("content-type", content_type).body(body)
    };
    let urlencoded = "application/x-www-form-urlencoded";
    let cases: [(&str, Vec<u8>, &str); 5] = [
        // Percent-encoded Latin-1 bytes, no charset said: not UTF-8, so windows-1252.
        (urlencoded, b"correo=a%40x.co&nombre=Mar%EDa+G%F3mez&ciudad=Bogot%E1&nota=%80+100".to_vec(), "a@x.co"),
        // The same bytes unencoded, as some clients send them.
        (urlencoded, b"correo=b%40x.co&nombre=Mar\xeda+G\xf3mez&ciudad=Bogot\xe1&nota=\x80 100".to_vec(), "b@x.co"),
        // Said in the Content-Type.
        (
            "application/x-www-form-urlencoded; charset=ISO-8859-1",
            b"correo=c%40x.co&nombre=Mar%EDa+G%F3mez&ciudad=Bogot%E1&nota=%80+100".to_vec(),
            "c@x.co",
        ),
        // Said by the browser in `_charset_`; the field itself is not kept.
        (
            urlencoded,
            b"_charset_=windows-1252&correo=d%40x.co&nombre=Mar%EDa+G%F3mez&ciudad=Bogot%E1&nota=%80+100".to_vec(),
            "d@x.co",
        ),
        // Multipart, no charset said.
        (
            "multipart/form-data; boundary=XyZ",
            [
                &b"--XyZ\r\nContent-Disposition: form-data; name=\"correo\"\r\n\r\ne@x.co\r\n"[..],
                b"--XyZ\r\nContent-Disposition: form-data; name=\"nombre\"\r\n\r\nMar\xeda G\xf3mez\r\n",
                b"--XyZ\r\nContent-Disposition: form-data; name=\"ciudad\"\r\n\r\nBogot\xe1\r\n",
                b"--XyZ\r\nContent-Disposition: form-data; name=\"nota\"\r\n\r\n\x80 100\r\n--XyZ--\r\n",
            ]
            .concat(),
            "e@x.co",
        ),
    ];
    for (content_type, body, email) in cases {
        let r = send(post(content_type, body)).await;
        assert_eq!(r.status, 201, "{email}: {}", r.text);
        let c = &site.get(&format!("/api/contacts?search={email}")).await["data"][0];
        assert_eq!(
            (&c["firstName"], &c["lastName"], &c["cityCode"], &c["nota"]),
            (&json!("María"), &json!("Gómez"), &json!("11001"), &json!("€ 100")),
            "{email}"
        );
    }
    let fields = &site.get(&format!("/api/forms/{id}/submissions")).await["data"][1]["fields"];
    assert_eq!((&fields["correo"], fields.get("_charset_")), (&json!("d@x.co"), None), "{fields}");
    // UTF-8 stays UTF-8, even beside a declared charset it agrees with.
    let r = send(post(
        "application/x-www-form-urlencoded; charset=utf-8",
        "correo=f%40x.co&nombre=Mar%C3%ADa+G%C3%B3mez&ciudad=Bogot%C3%A1&nota=%E2%82%AC+100".into(),
    ))
    .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(site.get("/api/contacts?search=f@x.co").await["data"][0]["nota"], "€ 100");
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
    assert_eq!(
        body["message"], "Hay varios municipios llamados «Villanueva». Elige tu municipio de la lista.",
        "a message for the visitor"
    );
    assert_eq!(body["candidates"].as_array().unwrap().len(), 4);
    assert!(body["candidates"][0]["code"].is_string());
    for (city, message) in [
        ("Medellín", "«Medellín» no está en el departamento que escribiste. Elige tu municipio de la lista."),
        ("Medelín", "No reconocemos la ciudad «Medelín». Elige tu municipio de la lista."),
    ] {
        let r =
            site.public(&id, &key, &json!({ "email": "nowhere@x.co", "ciudad": city, "depto": "Cundinamarca" })).await;
        assert_eq!((r.status.as_u16(), r.json()["message"].clone()), (400, json!(message)), "{city}");
    }
    let r = site.submit(&id, &json!({ "email": "nowhere@x.co", "cityCode": "99999" })).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("CITY_UNRESOLVED")));
    assert_eq!(r.json()["message"], "«99999» no es un código de municipio. Elige tu municipio de la lista.");
    let after =
        (site.total("/api/contacts").await, site.total("/api/deals").await, site.total("/api/notifications").await);
    assert_eq!(after, before, "no contact, no deal, no notification");
    assert_eq!(site.total(&format!("/api/forms/{id}/submissions")).await, submissions);

    let r = site.public(&id, &key, &json!({ "nombre": "Sin datos", "ciudad": "Cali" })).await;
    assert_eq!((r.status.as_u16(), r.json()["code"].clone()), (400, json!("VALIDATION_ERROR")));
    assert!(r.json()["message"].as_str().unwrap().contains("correo"), "{}", r.text);
    // A field the contacts module refuses is told to the visitor by what they typed.
    for (body, field, message) in [
        (json!({ "correo": "juan@" }), "email", "Revisa tu correo electrónico: no parece una dirección válida."),
        (json!({ "celular": "123" }), "mobile", "Revisa tu número de celular: escribe de 7 a 15 dígitos, sin letras."),
        (
            json!({ "celular": "300 ABC 4567" }),
            "mobile",
            "Revisa tu número de celular: escribe de 7 a 15 dígitos, sin letras.",
        ),
    ] {
        let r = site.public(&id, &key, &body).await;
        let b = r.json();
        assert_eq!(
            (r.status.as_u16(), &b["code"], &b["details"]["field"]),
            (400, &json!("VALIDATION_ERROR"), &json!(field))
        );
        assert_eq!(b["message"], message);
        // The token door is an integrator's: the contacts module's own words.
        let r = site.submit(&id, &body).await;
        assert_eq!((r.status.as_u16(), r.json()["details"]["field"].clone()), (400, json!(field)));
        assert!(!r.json()["message"].as_str().unwrap().starts_with("Revisa"), "{}", r.text);
    }
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
    // Told before its body is read: a client that waits for `100 Continue` never sends it.
    let headers = "X-Forwarded-For: 203.0.113.7, 127.0.0.1\r\nExpect: 100-continue\r\n";
    let head = post_head_only(&site.host.api, &site.public_url(&id, &key), headers, 1000);
    assert!(head.starts_with("HTTP/1.1 429"), "{head}");
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

/// The statuses of one public submit (a new email each) per
/// `X-Forwarded-For` value, in order, inside one rate-limit minute.
async fn statuses_forwarded_for(site: &Site, form: &str, key: &str, hops: &[&str]) -> Vec<u16> {
    well_inside_a_minute().await;
    let mut statuses = Vec::new();
    for (i, hops) in hops.iter().enumerate() {
        let r = site
            .host
            .request(Method::POST, &site.public_url(form, key))
            .header("x-forwarded-for", *hops)
            .json(&json!({ "email": format!("hop{i}@x.co") }));
        statuses.push(send(r).await.status.as_u16());
    }
    statuses
}

#[tokio::test]
async fn an_ipv6_client_is_limited_by_its_64_not_by_each_address_it_makes_up() {
    let site = Site::open_with(&[("CRM_FORM_RATE_PER_MINUTE", "2"), ("CRM_TRUST_FORWARDED_FOR", "127.0.0.1")]).await;
    let (id, key) = site.form(json!({ "name": "F" })).await;
    let one_64 = ["2001:db8:1:2::1, 127.0.0.1", "2001:db8:1:2::2, 127.0.0.1", "2001:db8:1:2:abcd::3, 127.0.0.1"];
    let next_64 = "2001:db8:1:3::1, 127.0.0.1";
    let statuses = statuses_forwarded_for(&site, &id, &key, &[one_64[0], one_64[1], one_64[2], next_64]).await;
    assert_eq!(statuses, [201, 201, 429, 201], "three addresses of one /64 are one client; the next /64 another");
    assert_eq!(site.total("/api/contacts").await, 3);
}

#[tokio::test]
async fn a_proxy_may_be_trusted_by_its_network() {
    let trusted = [("CRM_FORM_RATE_PER_MINUTE", "1"), ("CRM_TRUST_FORWARDED_FOR", "10.0.0.0/8, 127.0.0.0/8")];
    let site = Site::open_with(&trusted).await;
    let (id, key) = site.form(json!({ "name": "F" })).await;
    let hops = ["203.0.113.7, 10.2.3.4", "198.51.100.9, 10.2.3.4", "203.0.113.7, 10.9.9.9"];
    let statuses = statuses_forwarded_for(&site, &id, &key, &hops).await;
    assert_eq!(statuses, [201, 201, 429], "each client behind the proxies has its own limit");
}

#[tokio::test]
async fn forwarded_for_is_ignored_from_untrusted_peers() {
    let site = Site::open_with(&[("CRM_FORM_RATE_PER_MINUTE", "2")]).await;
    let (id, key) = site.form(json!({ "name": "F" })).await;
    let statuses = statuses_forwarded_for(&site, &id, &key, &["198.51.100.0", "198.51.100.1", "198.51.100.2"]).await;
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
    // The host refuses it on its declared length, on either door, without
    // asking for it.
    let expect = "Expect: 100-continue\r\n";
    let head = post_head_only(&site.host.api, &site.public_url(&id, &key), expect, 100_000);
    assert!(head.starts_with("HTTP/1.1 413") && head.contains("65536"), "{head}");
    let headers = format!("Authorization: Bearer {}\r\n{expect}", site.token);
    let head = post_head_only(&site.host.api, &format!("/api/forms/{id}/submit"), &headers, 100_000);
    assert!(head.starts_with("HTTP/1.1 413") && head.contains("65536"), "{head}");
    // A client that sends it anyway is told once it is in, and its
    // connection stays open: closed under a client still sending, the
    // connection is reset and the client may never see the 413.
    let answers = {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(site.host.api.trim_start_matches("http://")).unwrap();
        let head = format!(
            "POST {} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n",
            site.public_url(&id, &key)
        );
        let _ = s.write_all(head.as_bytes());
        let _ = s.write_all(&[b' '; 100_000]);
        let _ = s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        s.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
        let mut answers = Vec::new();
        let _ = s.read_to_end(&mut answers);
        String::from_utf8_lossy(&answers).into_owned()
    };
    assert!(answers.starts_with("HTTP/1.1 413") && answers.contains("HTTP/1.1 200"), "{answers}");
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
