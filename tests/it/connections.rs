//! Connections are bounded in time and number: headers and bodies must arrive
//! in time, idle kept-alive connections are closed, past the cap new
//! connections wait instead of exhausting file descriptors, and a shutdown
//! ends within its grace period whatever clients do.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crm_tests::shop::eventually;
use crm_tests::*;
use futures_util::StreamExt;

fn addr(host: &Host) -> String {
    host.api.trim_start_matches("http://").to_string()
}

/// Waits until the server closes `stream` (EOF or reset); returns how long it
/// took, or `None` if it was still open after `limit`.
fn closed_within(stream: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let started = Instant::now();
    stream.set_read_timeout(Some(limit)).unwrap();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return Some(started.elapsed()),
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                return None;
            }
            Err(_) => return Some(started.elapsed()),
        }
    }
}

#[tokio::test]
async fn slow_headers_and_idle_connections_are_closed() {
    let host = Host::start_with(&[("CRM_HEADER_TIMEOUT_MS", "500")]).await;
    // Headers that never finish.
    let mut slow = TcpStream::connect(addr(&host)).unwrap();
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n").unwrap();
    let took = closed_within(&mut slow, Duration::from_secs(5))
        .expect("a connection that never finished its headers stayed open");
    assert!(took < Duration::from_secs(3), "{took:?}");

    // A kept-alive connection that goes quiet after a request.
    let mut idle = TcpStream::connect(addr(&host)).unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut buf = [0u8; 1024];
    let n = idle.read(&mut buf).unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    assert!(closed_within(&mut idle, Duration::from_secs(5)).is_some(), "an idle kept-alive connection stayed open");

    // Many idle connections are all closed: each header timeout (500 ms)
    // is one the host keeps for itself, so on a loaded machine they close
    // late, and the test waits for them all, 10 s at most.
    let mut many: Vec<TcpStream> = (0..500).map(|_| TcpStream::connect(addr(&host)).unwrap()).collect();
    let until = Instant::now() + Duration::from_secs(10);
    let open = many
        .iter_mut()
        .map(|s| closed_within(s, until.saturating_duration_since(Instant::now()).max(Duration::from_millis(1))))
        .filter(Option::is_none)
        .count();
    assert_eq!(open, 0, "{open} of 500 idle connections were still open after 10 s");
}

#[tokio::test]
async fn an_idle_http2_connection_is_closed_and_a_slow_request_on_one_is_not() {
    let host = Host::start_with(&[("CRM_HEADER_TIMEOUT_MS", "500")]).await;
    // HTTP/2 without TLS (prior knowledge): the preface and empty settings, then nothing.
    let mut idle = TcpStream::connect(addr(&host)).unwrap();
    idle.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00").unwrap();
    let took = closed_within(&mut idle, Duration::from_secs(5)).expect("an idle HTTP/2 connection stayed open");
    assert!(took < Duration::from_secs(3), "{took:?}");

    // A request whose body takes three header timeouts to arrive is in flight, not idle.
    let token = host.demo_token.clone().unwrap();
    let parts = ["{\"email\":", "\"slow@h2.co\",", "\"city\":", "\"Tunja\"}"];
    let body = futures_util::stream::iter(parts).then(|part| async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        Ok::<_, std::io::Error>(part)
    });
    let client = reqwest::Client::builder().http2_prior_knowledge().build().unwrap();
    let r = client
        .post(format!("{}/api/contacts", host.api))
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .body(reqwest::Body::wrap_stream(body))
        .send()
        .await
        .unwrap();
    assert_eq!((r.version(), r.status()), (reqwest::Version::HTTP_2, StatusCode::CREATED));
    assert_eq!(r.json::<Value>().await.unwrap()["data"]["cityCode"], "15001");
}

#[tokio::test]
async fn a_body_that_does_not_arrive_is_408() {
    let host = Host::start_with(&[("CRM_BODY_TIMEOUT_MS", "500")]).await;
    let token = host.demo_token.clone().unwrap();
    let mut s = TcpStream::connect(addr(&host)).unwrap();
    let head = format!(
        "POST /api/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"email\""
    );
    s.write_all(head.as_bytes()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut buf = [0u8; 4096];
    let n = s.read(&mut buf).expect("an answer before the read timeout");
    let text = String::from_utf8_lossy(&buf[..n]);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("REQUEST_TIMEOUT"), "{text}");
}

#[tokio::test]
async fn past_the_connection_cap_new_connections_wait_and_descriptors_stay_bounded() {
    let host = Host::start_with(&[("CRM_MAX_CONNECTIONS", "100"), ("CRM_HEADER_TIMEOUT_MS", "1500")]).await;
    let pid = host.pid().unwrap();
    let fds = || std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count()).unwrap_or(0);
    let baseline = fds();
    // Far more sockets than the cap; the kernel completes the handshakes of
    // those waiting in its backlog (1,024).
    let held: Vec<TcpStream> = (0..900).filter_map(|_| TcpStream::connect(addr(&host)).ok()).collect();
    assert_eq!(held.len(), 900);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let during = fds();
    assert!(during <= baseline + 100 + 10, "{during} descriptors open with a cap of 100 (baseline {baseline})");
    // The host is alive and answers once idle connections time out.
    let started = Instant::now();
    let r = tokio::time::timeout(Duration::from_secs(30), host.client.get(format!("{}/healthz", host.api)).send())
        .await
        .expect("healthz answered")
        .unwrap();
    assert_eq!(r.status(), 200);
    eprintln!("healthz answered after {:?} behind {} held connections", started.elapsed(), held.len());
    drop(held);
}

#[tokio::test]
async fn shutdown_ends_within_its_grace_with_a_half_sent_request() {
    let mut host = Host::start_with(&[
        ("CRM_SHUTDOWN_GRACE_MS", "1000"),
        ("CRM_HEADER_TIMEOUT_MS", "60000"),
        ("CRM_BODY_TIMEOUT_MS", "60000"),
    ])
    .await;
    let token = host.demo_token.clone().unwrap();
    let mut s = TcpStream::connect(addr(&host)).unwrap();
    let head = format!(
        "POST /api/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{"
    );
    s.write_all(head.as_bytes()).unwrap();
    // A second client that never finishes its headers.
    let mut t = TcpStream::connect(addr(&host)).unwrap();
    t.write_all(b"GET /api/me HTTP/1.1\r\n").unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let api = addr(&host);
    let started = Instant::now();
    let exited = host.terminate_within(Duration::from_secs(8)).await;
    assert_eq!(exited, Some(true), "the host did not exit 0 within 8 s of SIGTERM");
    // The grace (1 s) bounds it: the half-sent request would hold it 60 s.
    assert!(started.elapsed() < Duration::from_secs(6), "exit took {:?}", started.elapsed());
    assert!(TcpStream::connect(api).is_err(), "the listener still accepts after the exit");
}

#[tokio::test]
async fn the_body_bytes_held_at_once_are_bounded_and_given_back() {
    let host = Host::start_logging(&[
        ("CRM_MAX_BODY_MEMORY_MB", "1"),
        ("CRM_LOG_FORMAT", "json"),
        ("RUST_LOG", "warn,crm_host::access=debug"),
    ])
    .await;
    let token = host.demo_token.clone().unwrap();
    // A contact padded with whitespace to `n` bytes: valid JSON of any size.
    let padded = |n: usize| format!("{{\"email\":\"budget@bodies.co\"}}{}", " ".repeat(n));
    let post = |body: Vec<u8>, gzipped: bool| {
        let mut request = host
            .request(Method::POST, "/api/contacts")
            .bearer_auth(&token)
            .header("content-type", "application/json")
            .body(body);
        if gzipped {
            request = request.header("content-encoding", "gzip");
        }
        request.send()
    };
    let gzipped = {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(padded(300_000).as_bytes()).unwrap();
        encoder.finish().unwrap()
    };
    assert!(gzipped.len() < 2_000);

    // A body sent without a valid token is dropped as it arrives, never held:
    // 800 KB of a declared 1 MB, the rest never coming.
    let hog_head = |token: &str| {
        format!(
            "POST /api/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n"
        )
    };
    let mut stranger = TcpStream::connect(addr(&host)).unwrap();
    stranger.write_all(hog_head("crm_000000000000000000000000_nope").as_bytes()).unwrap();
    stranger.write_all(&vec![b' '; 800_000]).unwrap();
    // Loopback hands the host those bytes within milliseconds; held, they
    // would make the next body a 503.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(host.metric("crm_http_body_bytes_held").await, 0.0);
    assert_eq!(post(padded(300_000).into_bytes(), false).await.unwrap().status(), StatusCode::CREATED);
    // Its answer comes once its body is in, so that no reset loses it.
    stranger.write_all(&vec![b' '; 200_000]).unwrap();
    assert!(answer_status(&mut stranger).starts_with("HTTP/1.1 401"));

    // A caller with a token is held to the budget: this one holds 800 KB
    // of the 1 MiB while the rest never comes.
    let mut hog = TcpStream::connect(addr(&host)).unwrap();
    hog.write_all(hog_head(&token).as_bytes()).unwrap();
    hog.write_all(&vec![b' '; 800_000]).unwrap();
    let held =
        eventually(Duration::from_secs(10), || async { host.metric("crm_http_body_bytes_held").await >= 800_000.0 })
            .await;
    assert!(held, "the host holds the 800 KB sent");
    let busy = post(padded(300_000).into_bytes(), false).await.unwrap();
    assert_eq!(busy.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(busy.headers()["retry-after"], "1");
    let request_id = busy.headers()["x-request-id"].to_str().unwrap().to_string();
    let body: Value = busy.json().await.unwrap();
    assert_eq!(body["code"], "SERVER_BUSY", "{body}");
    // Logged with its method, as a refusal rather than a failure.
    let line = host
        .log()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["request_id"] == request_id.as_str())
        .expect("the refusal is in the access log");
    assert_eq!((&line["method"], &line["status"], &line["level"]), (&json!("POST"), &json!(503), &json!("DEBUG")));
    // A small gzip body is held at its decoded size.
    let answer = post(gzipped.clone(), true).await.unwrap();
    assert_eq!(answer.status(), StatusCode::SERVICE_UNAVAILABLE);
    // Bodies within what is left still pass (the contact the stranger's
    // phase created, updated).
    assert_eq!(post(padded(100_000).into_bytes(), false).await.unwrap().status(), StatusCode::OK);

    // The hog gone, its bytes are given back.
    drop(hog);
    let passed = eventually(Duration::from_secs(10), || async {
        post(gzipped.clone(), true).await.unwrap().status() != StatusCode::SERVICE_UNAVAILABLE
    })
    .await;
    assert!(passed, "the budget was not given back");
    assert_eq!(host.metric("crm_http_body_bytes_held").await, 0.0);
    assert_eq!(post(gzipped.clone(), true).await.unwrap().status(), StatusCode::OK, "the same contact, decoded");
    assert_eq!(post(padded(300_000).into_bytes(), false).await.unwrap().status(), StatusCode::OK);
}

/// The status line of the answer on `s`.
fn answer_status(s: &mut TcpStream) -> String {
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut answer = vec![0u8; 4096];
    let n = s.read(&mut answer).unwrap();
    String::from_utf8_lossy(&answer[..n]).lines().next().unwrap_or_default().to_string()
}

#[tokio::test]
async fn a_request_refused_on_its_head_is_answered_without_its_body() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    let readers = host.create_org(json!({ "name": "Readers", "plan": "unlimited" })).await;
    let reader = host.create_token(&readers, &["contacts:read"]).await;
    // A client that waits for `100 Continue` before sending its body is
    // told at once, and never asked for the body.
    let ask_at = |listener: &str, path: &str, token: &str, length: usize| {
        let started = Instant::now();
        let headers = format!("Authorization: Bearer {token}\r\nExpect: 100-continue\r\n");
        let answer = post_head_only(listener, path, &headers, length);
        (answer.lines().next().unwrap_or_default().to_string(), started.elapsed())
    };
    let ask = |path: &str, token: &str, length: usize| ask_at(&host.api, path, token, length);
    for (path, token, answer) in [
        ("/api/contacts", "crm_000000000000000000000000_nope", "HTTP/1.1 401"),
        ("/api/contacts", reader.as_str(), "HTTP/1.1 403"),
        ("/api/nowhere", token.as_str(), "HTTP/1.1 404"),
        ("/nowhere", token.as_str(), "HTTP/1.1 404"),
    ] {
        let (status, took) = ask(path, token, 500_000);
        assert!(status.starts_with(answer), "{path}: {status}");
        assert!(took < Duration::from_secs(5), "{path}: answered after {took:?}");
    }
    // The admin listener too.
    let (status, took) = ask_at(&host.admin, "/admin/orgs", "not-the-admin-token", 500_000);
    assert!(status.starts_with("HTTP/1.1 401") && took < Duration::from_secs(5), "{status} after {took:?}");
    // Admitted, the body is asked for.
    assert_eq!(ask("/api/contacts", &token, 20).0, "HTTP/1.1 100 Continue");
    assert_eq!(ask_at(&host.admin, "/admin/orgs", ADMIN_TOKEN, 20).0, "HTTP/1.1 100 Continue");
    // The token is checked before the body's size: a stranger learns nothing more.
    let (status, _) = ask("/api/contacts", "crm_000000000000000000000000_nope", 2 << 20);
    assert!(status.starts_with("HTTP/1.1 401"), "{status}");
}

#[tokio::test]
async fn a_request_head_past_64_kib_is_431() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    let send = |filler: usize| {
        let mut s = TcpStream::connect(addr(&host)).unwrap();
        let head = format!(
            "GET /api/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nX-Filler: {}\r\nConnection: close\r\n\r\n",
            "a".repeat(filler)
        );
        // The host may answer and close before the whole head is written.
        let _ = s.write_all(head.as_bytes());
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut answer = Vec::new();
        let _ = s.read_to_end(&mut answer);
        String::from_utf8_lossy(&answer).lines().next().unwrap_or_default().to_string()
    };
    assert_eq!(send(40 << 10), "HTTP/1.1 200 OK", "40 KiB of headers are read");
    assert_eq!(send(100 << 10), "HTTP/1.1 431 Request Header Fields Too Large");
}

#[tokio::test]
async fn a_slow_reader_gets_its_whole_answer_and_one_that_stops_is_dropped() {
    // A reader whose thread the machine holds for longer than this (with the
    // socket's buffers full) counts as stopped: 2 s, not 500 ms, for a
    // loaded machine, whose niced test threads can wait a second to run.
    let host = Host::start_with(&[("CRM_HEADER_TIMEOUT_MS", "2000")]).await;
    let (org, token) = host.org_with_token(json!({ "name": "Big answers", "plan": "unlimited" })).await;
    host.big_contacts(&org).await;
    let ask = || {
        let mut s = TcpStream::connect(addr(&host)).unwrap();
        let request =
            format!("GET /api/contacts?limit=1000 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n");
        s.write_all(request.as_bytes()).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s
    };

    // About 2 MB a second: the answer takes some three header timeouts to read.
    let mut slow = ask();
    let length = answer_head(&mut slow);
    assert!(length > 10_000_000, "{length}");
    let started = Instant::now();
    let (mut read, mut buf) = (0, vec![0u8; 16 << 10]);
    while read < length {
        match slow.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => read += n,
        }
        std::thread::sleep(Duration::from_millis(8));
    }
    assert_eq!(read, length, "a slow reader was cut after {:?}", started.elapsed());
    assert!(started.elapsed() > Duration::from_secs(3), "read too fast to show anything: {:?}", started.elapsed());

    // A reader that stops for a few header timeouts finds its answer cut.
    let mut stopped = ask();
    let length = answer_head(&mut stopped);
    std::thread::sleep(Duration::from_secs(6));
    let mut rest = Vec::new();
    let _ = stopped.read_to_end(&mut rest);
    assert!(rest.len() < length, "a reader that stopped got all {length} bytes: it was not dropped");
}

#[tokio::test]
async fn an_http2_answer_given_before_the_body_is_read_ends_its_stream_cleanly() {
    let host = Host::start().await;
    let token = host.demo_token.clone().unwrap();
    // Past the body limit on its declared length, and refused on its head
    // with more than the limit declared: answered before any of the body
    // is sent. The stream then ends with a reset after the answer, as
    // NO_ERROR (RFC 9113 § 8.1), which the client must not take for a
    // failure (a CANCEL is one: nginx drops the answer).
    for (auth, status, code) in
        [(token.as_str(), 413, "PAYLOAD_TOO_LARGE"), ("crm_000000000000000000000000_nope", 401, "API_TOKEN_INVALID")]
    {
        let tcp = tokio::net::TcpStream::connect(addr(&host)).await.unwrap();
        let (mut client, connection) = h2::client::handshake(tcp).await.unwrap();
        tokio::spawn(connection);
        let request = http::Request::post(format!("{}/api/contacts", host.api))
            .header("authorization", format!("Bearer {auth}"))
            .header("content-type", "application/json")
            .header("content-length", (3 << 20).to_string())
            .body(())
            .unwrap();
        let (answer, mut sending) = client.send_request(request, false).unwrap();
        let answer = answer.await.expect("an answer before the body");
        assert_eq!(answer.status().as_u16(), status);
        let mut body = answer.into_body();
        let mut text = Vec::new();
        while let Some(chunk) = body.data().await {
            text.extend_from_slice(&chunk.expect("the whole answer"));
        }
        let text: Value = serde_json::from_slice(&text).unwrap();
        assert_eq!(text["code"], code, "{text}");
        let reset = std::future::poll_fn(|cx| sending.poll_reset(cx)).await.unwrap();
        assert_eq!(reset, h2::Reason::NO_ERROR);
    }
}
