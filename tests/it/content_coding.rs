//! Content codings: answers come compressed with gzip to a client that asks
//! (`Accept-Encoding`), and a request body may be sent compressed with gzip
//! (`Content-Encoding`), under the limit its route sets for the decoded body.

use std::io::{Read, Write};

use crm_tests::*;
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    GzDecoder::new(bytes).read_to_end(&mut out).expect("a valid gzip body");
    out
}

/// An answer's status, headers and raw bytes (reqwest here does not undo gzip).
async fn fetch(req: reqwest::RequestBuilder) -> (StatusCode, reqwest::header::HeaderMap, Vec<u8>) {
    let r = req.send().await.unwrap();
    (r.status(), r.headers().clone(), r.bytes().await.unwrap().to_vec())
}

fn header<'a>(headers: &'a reqwest::header::HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

async fn org_of(host: &Host, contacts: usize) -> String {
    let (_, token) = host.org_with_token(json!({ "name": "Comprimida" })).await;
    let rows: Vec<Value> = (0..contacts)
        .map(|i| json!({ "email": format!("c{i}@acme.co"), "firstName": format!("Contacto {i}"), "city": "Medellín" }))
        .collect();
    let r = host.post("/api/import/contacts", &token, &json!({ "rows": rows })).await;
    assert_eq!(r.json()["data"]["created"], contacts, "{}", r.text);
    token
}

#[tokio::test]
async fn a_page_of_contacts_comes_gzipped_to_a_client_that_asks() {
    let host = Host::start().await;
    let token = org_of(&host, 100).await;
    let page = |accept: Option<&str>, method: Method| {
        let req = host.request(method, "/api/contacts?limit=100").bearer_auth(&token);
        fetch(match accept {
            Some(a) => req.header("accept-encoding", a),
            None => req,
        })
    };
    let (status, headers, plain) = page(None, Method::GET).await;
    assert_eq!((status, header(&headers, "content-encoding")), (StatusCode::OK, None));
    assert_eq!(header(&headers, "vary"), Some("accept-encoding"), "a cache keeps the codings apart");
    let listed: Value = serde_json::from_slice(&plain).unwrap();
    assert_eq!(listed["data"].as_array().unwrap().len(), 100);

    for accept in ["gzip", "br;q=1, gzip;q=0.5", "*", "x-gzip"] {
        let (status, headers, compressed) = page(Some(accept), Method::GET).await;
        assert_eq!((status, header(&headers, "content-encoding")), (StatusCode::OK, Some("gzip")), "{accept}");
        assert_eq!(header(&headers, "vary"), Some("accept-encoding"));
        assert_eq!(header(&headers, "content-length"), Some(compressed.len().to_string().as_str()));
        assert!(compressed.len() * 5 < plain.len(), "{} bytes of {}", compressed.len(), plain.len());
        assert_eq!(gunzip(&compressed), plain, "the same page, byte for byte");
    }
    for accept in ["identity", "br, deflate", "gzip;q=0", "*;q=0", "*, gzip;q=0"] {
        let (_, headers, body) = page(Some(accept), Method::GET).await;
        assert_eq!((header(&headers, "content-encoding"), &body), (None, &plain), "{accept}");
    }
    // HEAD announces what GET sends: the compressed length.
    let (_, gzipped_headers, gzipped) = page(Some("gzip"), Method::GET).await;
    let (status, headers, body) = page(Some("gzip"), Method::HEAD).await;
    assert_eq!((status, body.len(), header(&headers, "content-encoding")), (StatusCode::OK, 0, Some("gzip")));
    assert_eq!(header(&headers, "content-length"), header(&gzipped_headers, "content-length"));
    assert_eq!(header(&headers, "content-length"), Some(gzipped.len().to_string().as_str()));
}

#[tokio::test]
async fn a_small_answer_goes_as_it_is() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    let (status, headers, body) =
        fetch(host.request(Method::GET, "/api/me").bearer_auth(&token).header("accept-encoding", "gzip")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.len() < 1024, "the test needs an answer under the threshold: {} bytes", body.len());
    assert_eq!((header(&headers, "content-encoding"), header(&headers, "vary")), (None, None));
    assert_eq!(serde_json::from_slice::<Value>(&body).unwrap()["success"], true);
}

#[tokio::test]
async fn a_compressed_catalog_has_a_weak_tag_that_still_revalidates() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    let path = "/api/catalogs/municipalities?limit=1200";
    let get = |accept: &'static str, inm: Option<String>| {
        let req = host.request(Method::GET, path).bearer_auth(&token).header("accept-encoding", accept);
        fetch(match inm {
            Some(tag) => req.header("if-none-match", tag),
            None => req,
        })
    };
    let (_, plain_headers, plain) = get("identity", None).await;
    let strong = header(&plain_headers, "etag").unwrap().to_string();
    assert!(strong.starts_with('"'), "{strong}");
    let (_, headers, compressed) = get("gzip", None).await;
    assert_eq!(header(&headers, "content-encoding"), Some("gzip"));
    assert_eq!(header(&headers, "etag"), Some(format!("W/{strong}").as_str()), "other bytes, the same content");
    assert_eq!(header(&headers, "cache-control"), header(&plain_headers, "cache-control"));
    assert_eq!(gunzip(&compressed), plain);
    assert_eq!(serde_json::from_slice::<Value>(&plain).unwrap()["count"], 1122);

    // Either tag revalidates either way; the 304 names the tag the client holds.
    for (accept, tag, answered) in [
        ("gzip", format!("W/{strong}"), format!("W/{strong}")),
        ("gzip", strong.clone(), format!("W/{strong}")),
        ("identity", format!("W/{strong}"), strong.clone()),
    ] {
        let (status, headers, body) = get(accept, Some(tag.clone())).await;
        assert_eq!((status, body.len()), (StatusCode::NOT_MODIFIED, 0), "{accept} {tag}");
        assert_eq!(header(&headers, "etag"), Some(answered.as_str()), "{accept} {tag}");
    }
}

#[tokio::test]
async fn the_openapi_document_comes_gzipped_too() {
    let host = Host::start().await;
    let get =
        |accept: &'static str| fetch(host.request(Method::GET, "/api/openapi.json").header("accept-encoding", accept));
    let (_, _, plain) = get("identity").await;
    for _ in 0..2 {
        let (status, headers, compressed) = get("gzip").await;
        assert_eq!((status, header(&headers, "content-encoding")), (StatusCode::OK, Some("gzip")));
        assert_eq!(gunzip(&compressed), plain, "the one made ahead, the same document");
    }
    assert_eq!(serde_json::from_slice::<Value>(&plain).unwrap()["openapi"], "3.1.0");
}

#[tokio::test]
async fn a_gzip_body_is_read_as_what_it_holds() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    let post = |coding: &'static str, body: Vec<u8>| {
        fetch(
            host.request(Method::POST, "/api/contacts")
                .bearer_auth(&token)
                .header("content-type", "application/json")
                .header("content-encoding", coding)
                .body(body),
        )
    };
    let contact = json!({ "email": "gz@acme.co", "firstName": "Gabriela", "city": "Cali" }).to_string();
    let (status, _, body) = post("gzip", gzip(contact.as_bytes())).await;
    assert_eq!(status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&body));
    let created: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        (&created["data"]["email"], &created["data"]["firstName"], &created["data"]["cityCode"]),
        (&json!("gz@acme.co"), &json!("Gabriela"), &json!("76001"))
    );

    let (status, _, body) = post("gzip", b"{\"email\":\"broken@acme.co\"}".to_vec()).await;
    let refused: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!((status, &refused["code"]), (StatusCode::BAD_REQUEST, &json!("BODY_UNREADABLE")), "{refused}");
    for coding in ["br", "deflate", "gzip, gzip"] {
        let (status, headers, body) = post(coding, gzip(b"{\"email\":\"other@acme.co\"}")).await;
        let refused: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            (status, &refused["code"], header(&headers, "accept-encoding")),
            (StatusCode::UNSUPPORTED_MEDIA_TYPE, &json!("UNSUPPORTED_CONTENT_ENCODING"), Some("gzip")),
            "{coding}: {refused}"
        );
    }
    let list = host.get("/api/contacts", &token).await.json();
    assert_eq!(list["pagination"]["total"], 1, "only the readable body made a contact: {list}");
}

#[tokio::test]
async fn a_compressed_body_is_bounded_by_what_it_holds() {
    let host = Host::start_with(&[("CRM_MAX_BODY_BYTES", "10000")]).await;
    let token = host.demo_token.clone().unwrap();
    let send = |path: &'static str, content_type: &'static str, body: Vec<u8>| {
        fetch(
            host.request(Method::POST, path)
                .bearer_auth(&token)
                .header("content-type", content_type)
                .header("content-encoding", "gzip")
                .body(body),
        )
    };
    // 2 MB of JSON in 2 KB of gzip: refused at the host's limit, as the 2 MB would be.
    let bomb = gzip(format!("{{\"email\":\"bomb@acme.co\",\"notes\":\"{}\"}}", " ".repeat(2 << 20)).as_bytes());
    assert!(bomb.len() < 10_000);
    let (status, _, body) = send("/api/contacts", "application/json", bomb).await;
    let refused: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!((status, &refused["code"]), (StatusCode::PAYLOAD_TOO_LARGE, &json!("PAYLOAD_TOO_LARGE")), "{refused}");

    // An import's own, larger limit holds for its decoded body too.
    let csv: String = std::iter::once("email,firstName,city\n".to_string())
        .chain((0..2000).map(|i| format!("fila{i}@acme.co,Fila {i},Medellín\n")))
        .collect();
    assert!(csv.len() > 10_000);
    let (status, _, body) = send("/api/import/contacts", "text/csv", gzip(csv.as_bytes())).await;
    let imported: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!((status, &imported["data"]["created"]), (StatusCode::OK, &json!(2000)), "{imported}");
    let list = host.get("/api/contacts?cityCode=05001&limit=1", &token).await.json();
    assert_eq!(list["pagination"]["total"], 2000);
}
