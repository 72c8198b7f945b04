//! Content codings (RFC 9110 § 8.4): answers compressed with gzip for a
//! client that accepts it, and request bodies sent compressed with gzip read
//! back, under the same size limit as any body.
//!
//! A page of 100 contacts is about 48 KB of JSON and 5 KB as gzip; the whole
//! municipality catalog 155 KB and 26 KB. gzip at its fastest level costs
//! about a microsecond per kilobyte (zlib-rs), which the bytes saved on any
//! real network repay many times over.

use std::io::{Read, Write};

use bytes::Bytes;
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use http::header::{ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, ETAG, VARY};
use http::{HeaderMap, HeaderValue, StatusCode};

use super::{ApiError, Response};

/// Smallest body worth compressing: below it gzip's header and trailer (18
/// bytes) and the work cost more than the bytes saved, as for most errors.
pub const MIN_COMPRESSED: usize = 1024;

/// Whether the request's `Accept-Encoding` takes gzip: named (or `x-gzip`)
/// with a weight above zero, or not named while `*` has one.
pub fn accepts_gzip(headers: &HeaderMap) -> bool {
    let mut named = None;
    let mut any = None;
    let codings = headers.get_all(ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(','));
    for item in codings {
        let mut parts = item.split(';');
        let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let weighted = parts.all(|p| {
            let p = p.trim();
            match p.get(..2) {
                Some(q) if q.eq_ignore_ascii_case("q=") => {
                    p.get(2..).unwrap_or_default().trim().parse::<f32>().is_ok_and(|q| q > 0.0)
                }
                _ => true,
            }
        });
        match coding.as_str() {
            "gzip" | "x-gzip" => named = Some(weighted),
            "*" => any = Some(weighted),
            _ => {}
        }
    }
    named.or(any).unwrap_or(false)
}

/// The answer compressed when the client takes gzip and the body is text
/// worth compressing. Every answer that could have been compressed says
/// `Vary: Accept-Encoding`, so a shared cache (the catalog's are public)
/// keeps the two apart; a compressed one's `ETag` becomes weak, since its
/// bytes are not the uncompressed ones (§ 8.8.3), and so does a 304's for
/// such a client, so it names the tag that client holds.
pub fn compress(mut response: Response, accepts_gzip: bool) -> Response {
    if response.status == StatusCode::NOT_MODIFIED {
        if accepts_gzip {
            weaken_etag(&mut response);
        }
        return response;
    }
    if response.body.len() < MIN_COMPRESSED || !is_text(&response) || header(&response, &CONTENT_ENCODING).is_some() {
        return response;
    }
    response.headers.push((VARY, HeaderValue::from_static("accept-encoding")));
    if !accepts_gzip {
        return response;
    }
    let compressed = match response.gzipped.take() {
        Some(made_ahead) => Ok(made_ahead),
        None => gzip(&response.body).map(Bytes::from),
    };
    match compressed {
        Ok(bytes) => {
            response.body = bytes;
            response.headers.push((CONTENT_ENCODING, HeaderValue::from_static("gzip")));
            weaken_etag(&mut response);
        }
        // Writing to memory does not fail; were it to, the body goes as it is.
        Err(e) => tracing::warn!(error = %e, "gzip failed; answering uncompressed"),
    }
    response
}

/// `bytes` compressed with gzip at its fastest level, which for JSON comes
/// within a fifth of the best level's size at a third of its time.
pub fn gzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut encoder = GzEncoder::new(Vec::with_capacity(bytes.len() / 4), Compression::fast());
    encoder.write_all(bytes)?;
    encoder.finish()
}

/// The gzip form [`compress`] would send of `body`, made once for a cached
/// answer ([`Response::with_gzipped`]); `None` below the size worth it.
pub fn gzip_ahead(body: &[u8]) -> Option<Bytes> {
    if body.len() < MIN_COMPRESSED {
        return None;
    }
    gzip(body).ok().map(Bytes::from)
}

/// A request body as the route reads it: gzip undone (`Content-Encoding:
/// gzip`, the header then dropped), within `allows` for the decoded size,
/// which is what a route works on, so a small bomb cannot grow past it.
/// Another coding is 415 `UNSUPPORTED_CONTENT_ENCODING`, naming gzip in
/// `Accept-Encoding` (§ 15.5.16).
pub fn decoded_body(headers: &mut HeaderMap, body: Bytes, allows: impl FnMut(u64) -> bool) -> Result<Bytes, Undecoded> {
    let codings: Vec<String> = headers
        .get_all(CONTENT_ENCODING)
        .iter()
        .flat_map(|v| v.to_str().unwrap_or("?").split(','))
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty() && c != "identity")
        .collect();
    match codings.as_slice() {
        // A stray header on a bodiless GET has nothing to undo.
        _ if codings.is_empty() || body.is_empty() => return Ok(body),
        [gzip] if (gzip == "gzip" || gzip == "x-gzip") => {}
        _ => {
            return Err(Undecoded::Refused(
                ApiError::new(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    "UNSUPPORTED_CONTENT_ENCODING",
                    "The request body may be sent as it is or compressed with gzip (Content-Encoding: gzip)",
                )
                .with_header(ACCEPT_ENCODING, "gzip"),
            ));
        }
    }
    let decoded = gunzip(&body, allows)?;
    headers.remove(CONTENT_ENCODING);
    headers.insert(CONTENT_LENGTH, HeaderValue::from(decoded.len()));
    Ok(Bytes::from(decoded))
}

/// Why a request body could not be decoded.
#[derive(Debug)]
pub enum Undecoded {
    /// Decoded, it is larger than its route allows: 413, as any body.
    TooLarge,
    /// Another coding, or broken gzip: the answer.
    Refused(ApiError),
}

/// Undoes gzip a block at a time, asking `allows` for each new size.
fn gunzip(body: &[u8], mut allows: impl FnMut(u64) -> bool) -> Result<Vec<u8>, Undecoded> {
    let mut decoder = GzDecoder::new(body);
    let mut out = Vec::with_capacity((body.len() * 4).min(1 << 20));
    let mut block = [0u8; 16 << 10];
    loop {
        let n = decoder.read(&mut block).map_err(|e| {
            Undecoded::Refused(ApiError::new(
                StatusCode::BAD_REQUEST,
                "BODY_UNREADABLE",
                format!("The request body is not valid gzip: {e}"),
            ))
        })?;
        if n == 0 {
            return Ok(out);
        }
        if !allows((out.len() + n) as u64) {
            return Err(Undecoded::TooLarge);
        }
        out.extend_from_slice(block.get(..n).unwrap_or_default());
    }
}

/// JSON, text, CSV: what compresses; not an image, a PDF label or an archive.
fn is_text(response: &Response) -> bool {
    header(response, &CONTENT_TYPE).is_some_and(|ct| {
        let mime = ct.to_str().unwrap_or("").split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        mime.starts_with("text/") || mime == "application/json" || mime.ends_with("+json")
    })
}

fn header<'a>(response: &'a Response, name: &http::HeaderName) -> Option<&'a HeaderValue> {
    response.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v)
}

fn weaken_etag(response: &mut Response) {
    for (name, value) in &mut response.headers {
        if *name == ETAG
            && let Ok(tag) = value.to_str()
            && tag.starts_with('"')
            && let Ok(weak) = HeaderValue::from_str(&format!("W/{tag}"))
        {
            *value = weak;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepting(values: &[&str]) -> bool {
        let mut headers = HeaderMap::new();
        for v in values {
            headers.append(ACCEPT_ENCODING, HeaderValue::from_str(v).unwrap());
        }
        accepts_gzip(&headers)
    }

    #[test]
    fn accept_encoding_is_read_with_its_weights() {
        for yes in
            [&["gzip"][..], &["gzip, deflate, br"], &["br;q=1.0, GZIP;q=0.5"], &["*"], &["x-gzip"], &["br", "gzip"]]
        {
            assert!(accepting(yes), "{yes:?}");
        }
        let no: [&[&str]; 7] =
            [&[], &["identity"], &["br, deflate"], &["gzip;q=0"], &["gzip; q=0.000"], &["*;q=0"], &["*, gzip;q=0"]];
        for no in no {
            assert!(!accepting(no), "{no:?}");
        }
    }

    fn json_response(len: usize) -> Response {
        let body = format!("[{}]", vec!["{\"a\":1}"; len / 8].join(","));
        Response::json_bytes(StatusCode::OK, Bytes::from(body)).with_header(ETAG, "\"v1-abc\"")
    }

    fn gunzipped(body: &[u8]) -> Vec<u8> {
        gunzip(body, |_| true).expect("valid gzip")
    }

    #[test]
    fn a_large_text_answer_is_compressed_and_its_tag_weakened() {
        let plain = json_response(4096);
        let r = compress(plain.clone(), true);
        assert_eq!(header(&r, &CONTENT_ENCODING).unwrap(), "gzip");
        assert_eq!(header(&r, &VARY).unwrap(), "accept-encoding");
        assert_eq!(header(&r, &ETAG).unwrap(), "W/\"v1-abc\"");
        assert!(r.body.len() < plain.body.len() / 10);
        assert_eq!(gunzipped(&r.body), plain.body.to_vec());
    }

    #[test]
    fn a_gzip_form_made_ahead_is_sent_as_it_is() {
        let plain = json_response(4096);
        let ahead = gzip_ahead(&plain.body);
        assert_eq!(gunzipped(ahead.as_deref().unwrap()), plain.body.to_vec());
        let r = compress(plain.clone().with_gzipped(Some(Bytes::from_static(b"made ahead"))), true);
        assert_eq!(
            (&r.body[..], header(&r, &CONTENT_ENCODING).unwrap().as_bytes()),
            (&b"made ahead"[..], &b"gzip"[..])
        );
        let r = compress(plain.clone().with_gzipped(ahead), false);
        assert_eq!(r.body, plain.body, "not to a client that does not take it");
        assert_eq!(gzip_ahead(b"{}"), None, "nor below the size worth it");
    }

    #[test]
    fn what_is_not_compressed_says_why_through_its_headers() {
        let r = compress(json_response(4096), false);
        assert_eq!(
            (header(&r, &VARY).unwrap(), header(&r, &CONTENT_ENCODING)),
            (&HeaderValue::from_static("accept-encoding"), None)
        );
        assert_eq!(header(&r, &ETAG).unwrap(), "\"v1-abc\"", "an uncompressed answer keeps its strong tag");
        let small = compress(json_response(512), true);
        assert_eq!((header(&small, &VARY), header(&small, &CONTENT_ENCODING)), (None, None));
        let mut png = json_response(4096);
        png.headers[0].1 = HeaderValue::from_static("image/png");
        assert_eq!(header(&compress(png, true), &CONTENT_ENCODING), None);
        let not_modified = Response::empty(StatusCode::NOT_MODIFIED).with_header(ETAG, "\"v1-abc\"");
        assert_eq!(header(&compress(not_modified.clone(), true), &ETAG).unwrap(), "W/\"v1-abc\"");
        assert_eq!(header(&compress(not_modified, false), &ETAG).unwrap(), "\"v1-abc\"");
    }

    fn request_headers(coding: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_ENCODING, HeaderValue::from_str(coding).unwrap());
        headers
    }

    /// At the best level, as a bomb would be made.
    fn gzipped(body: &[u8]) -> Bytes {
        let mut e = GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(body).unwrap();
        Bytes::from(e.finish().unwrap())
    }

    fn refusal(e: Undecoded) -> ApiError {
        match e {
            Undecoded::Refused(e) => e,
            Undecoded::TooLarge => panic!("refused for its size"),
        }
    }

    #[test]
    fn a_gzip_body_is_read_back_within_the_limit() {
        let mut headers = request_headers("gzip");
        let body = decoded_body(&mut headers, gzipped(b"{\"email\":\"ana@acme.co\"}"), |n| n <= 100).ok();
        assert_eq!(body.as_deref(), Some(&b"{\"email\":\"ana@acme.co\"}"[..]));
        assert_eq!((headers.get(CONTENT_ENCODING), headers[CONTENT_LENGTH].to_str().unwrap()), (None, "23"));
        let bomb = gzipped(&vec![b' '; 1 << 20]);
        assert!(bomb.len() < 2048);
        let e = decoded_body(&mut request_headers("gzip"), bomb, |n| n <= 100_000).unwrap_err();
        assert!(matches!(e, Undecoded::TooLarge), "{e:?}");
        let e = decoded_body(&mut request_headers("gzip"), Bytes::from_static(b"not gzip"), |_| true);
        assert_eq!(refusal(e.unwrap_err()).code(), "BODY_UNREADABLE");
    }

    #[test]
    fn another_coding_is_refused_and_identity_passes() {
        for coding in ["br", "deflate", "gzip, gzip", "zstd"] {
            let e = decoded_body(&mut request_headers(coding), Bytes::from_static(b"x"), |_| true);
            let e = refusal(e.unwrap_err());
            assert_eq!((e.status(), e.code()), (StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_CONTENT_ENCODING"));
        }
        let body = decoded_body(&mut request_headers("identity"), Bytes::from_static(b"{}"), |_| true);
        assert_eq!(body.ok().as_deref(), Some(&b"{}"[..]));
    }
}
