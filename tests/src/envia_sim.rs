//! The Envia simulator: a small HTTP server speaking Envia's wire format
//! (`../shared/envia-api.md`) — the only stand-in in the tests, because
//! Envia is outside.
//!
//! It serves both APIs on one address (the host's `queriesUrl` then defaults
//! to `baseUrl`): `GET /carrier`, `POST /ship/rate/`, `/ship/generate/`,
//! `/ship/generaltrack/`, `/ship/cancel/`. It keeps an account balance and
//! labels, never de-duplicates a generate (like Envia), and counts calls.
//! Faithful details: a bad key gets a plain-text 401; errors arrive with
//! HTTP 200 and `meta: "error"`; one carrier sends prices as strings.
//!
//! Tests steer it per case: fail one carrier's rate, answer slowly, stall a
//! generate past the host's timeout, answer a generate with 502, cancel
//! slowly, move a
//! label's status, and send the tracking webhook (twice, if asked).

use std::collections::{BTreeMap, BTreeSet};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use warp::Filter;
use warp::http::StatusCode;
use warp::reply::Response;

/// The API key the simulated account accepts.
pub const API_KEY: &str = "sim-envia-key";

/// Carriers for Colombia, with Envia's own casing.
pub const CARRIERS: &[&str] = &["coordinadora", "serviEntrega", "interRapidisimo", "tcc", "deprisa"];
/// Carriers that take a pickup with the label (`pickup_on_generate`).
pub const PICKUP_CARRIERS: &[&str] = &["coordinadora", "tcc"];

/// Envia's 2-letter department codes the simulator accepts.
const STATES: &[&str] = &[
    "AM", "AN", "AR", "AT", "DC", "BL", "BY", "CL", "CA", "CS", "CU", "CE", "CH", "CO", "CN", "GU", "GA", "HU", "LG",
    "MA", "ME", "NA", "NS", "PU", "QU", "RI", "SA", "SN", "SU", "TO", "VC", "VA", "VI",
];

/// How the next generates answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GenerateMode {
    Normal,
    /// Never answers (past any timeout).
    Stall,
    /// 502 Bad Gateway from a carrier back-end.
    ServerError,
}

#[derive(Debug, Clone)]
struct Label {
    carrier: String,
    service: String,
    price: f64,
    status: String,
    events: Vec<Value>,
    /// `shipment.pickup` of the generate request, or null.
    pickup: Value,
}

struct State {
    balance: f64,
    mode: GenerateMode,
    failing: BTreeSet<String>,
    rate_latency: Duration,
    generate_latency: Duration,
    cancel_latency: Duration,
    labels: BTreeMap<String, Label>,
    calls: BTreeMap<&'static str, usize>,
    next: u64,
}

/// A running simulator; stops with the test's runtime.
#[derive(Clone)]
pub struct EnviaSim {
    pub url: String,
    state: Arc<Mutex<State>>,
}

impl EnviaSim {
    /// Starts on a free loopback port with a balance of 1,000,000 COP.
    pub async fn start() -> EnviaSim {
        EnviaSim::start_on("127.0.0.1:0".parse().unwrap()).await
    }

    pub async fn start_on(addr: SocketAddr) -> EnviaSim {
        let state = Arc::new(Mutex::new(State {
            balance: 1_000_000.0,
            mode: GenerateMode::Normal,
            failing: BTreeSet::new(),
            rate_latency: Duration::ZERO,
            generate_latency: Duration::ZERO,
            cancel_latency: Duration::ZERO,
            labels: BTreeMap::new(),
            calls: BTreeMap::new(),
            next: 0,
        }));
        let sim = EnviaSim { url: String::new(), state };
        let served = sim.clone();
        let routes =
            warp::any()
                .and(warp::method())
                .and(warp::path::full())
                .and(warp::query::raw().or(warp::any().map(String::new)).unify())
                .and(warp::header::optional::<String>("authorization"))
                .and(warp::body::bytes())
                .then(
                    move |method: warp::http::Method,
                          path: warp::path::FullPath,
                          query: String,
                          auth: Option<String>,
                          body: bytes::Bytes| {
                        let sim = served.clone();
                        async move {
                            Ok::<_, Infallible>(sim.serve(method.as_str(), path.as_str(), &query, auth, &body).await)
                        }
                    },
                );
        let listener = tokio::net::TcpListener::bind(addr).await.expect("bind the simulator");
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(warp::serve(routes).incoming(listener).run());
        EnviaSim { url, ..sim }
    }

    fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        f(&mut self.state.lock().unwrap())
    }

    /// How many calls an endpoint got: `carrier`, `carrier-action`, `rate`, `generate`, `track`, `cancel`.
    pub fn calls(&self, endpoint: &str) -> usize {
        self.with(|s| s.calls.get(endpoint).copied().unwrap_or(0))
    }

    pub fn balance(&self) -> f64 {
        self.with(|s| s.balance)
    }

    pub fn set_balance(&self, balance: f64) {
        self.with(|s| s.balance = balance);
    }

    pub fn set_generate_mode(&self, mode: GenerateMode) {
        self.with(|s| s.mode = mode);
    }

    /// This carrier's rate answers an error (with HTTP 200, as Envia does).
    pub fn fail_carrier(&self, carrier: &str) {
        self.with(|s| s.failing.insert(carrier.to_string()));
    }

    pub fn set_latency(&self, rate: Duration, generate: Duration) {
        self.with(|s| {
            s.rate_latency = rate;
            s.generate_latency = generate;
        });
    }

    /// Cancels answer after `latency`.
    pub fn set_cancel_latency(&self, latency: Duration) {
        self.with(|s| s.cancel_latency = latency);
    }

    /// Moves a label to an Envia status name (`Shipped`, `Delivered`...), with an event.
    pub fn set_status(&self, tracking_number: &str, status: &str) {
        self.with(|s| {
            let label = s.labels.get_mut(tracking_number).expect("a label of the simulator");
            label.status = status.to_string();
            label.events.push(json!({
                "timestamp": format!("2026-11-22 10:{:02}", label.events.len()),
                "location": "MEDELLIN",
                "description": format!("Estado: {status}"),
            }));
        });
    }

    /// The pickup a label was generated with (null when none).
    pub fn pickup_of(&self, tracking_number: &str) -> Value {
        self.with(|s| s.labels.get(tracking_number).map(|l| l.pickup.clone()).unwrap_or(Value::Null))
    }

    /// Sends Envia's tracking webhook (`tracking.simple`) to `url` with delivery
    /// id `delivery`; answers the receiver's status and body.
    pub async fn send_webhook(&self, url: &str, tracking_number: &str, status: &str, delivery: &str) -> (u16, Value) {
        let body = json!({
            "type": "tracking.simple",
            "created_at": "2026-11-22T14:23:05.000Z",
            "data": {
                "shipment_id": 170476, "tracking_number": tracking_number, "carrier_name": "coordinadora",
                "status": status, "status_description": format!("Estado {status}"), "location": "MEDELLIN",
            },
        });
        let r = reqwest::Client::new()
            .post(url)
            .header("x-webhook-event", "tracking.simple")
            .header("x-webhook-version", "2025-09-01")
            .header("x-webhook-id", delivery)
            .json(&body)
            .send()
            .await
            .expect("the webhook receiver answers");
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    async fn serve(&self, method: &str, path: &str, query: &str, auth: Option<String>, body: &[u8]) -> Response {
        if auth.as_deref() != Some(&format!("Bearer {API_KEY}")) {
            return text(StatusCode::UNAUTHORIZED, "Authentication error.");
        }
        let body: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        match (method, path.trim_end_matches('/')) {
            ("GET", "/carrier") => self.carriers(query),
            ("GET", p) if p.starts_with("/carrier-action/") => self.carrier_actions(&p["/carrier-action/".len()..]),
            ("POST", "/ship/rate") => self.rate(&body).await,
            ("POST", "/ship/generate") => self.generate(&body).await,
            ("POST", "/ship/generaltrack") => self.track(&body),
            ("POST", "/ship/cancel") => self.cancel(&body).await,
            _ => reply(
                StatusCode::NOT_FOUND,
                json!({ "statusCode": 404, "error": "Not Found", "message": "No such route" }),
            ),
        }
    }

    fn count(&self, endpoint: &'static str) {
        self.with(|s| *s.calls.entry(endpoint).or_default() += 1);
    }

    fn carriers(&self, query: &str) -> Response {
        self.count("carrier");
        if !query.contains("country_code=CO") {
            return reply(StatusCode::OK, json!({ "data": [] }));
        }
        let data: Vec<Value> = CARRIERS.iter().map(|c| json!({ "name": c, "country_code": "CO" })).collect();
        reply(StatusCode::OK, json!({ "data": data }))
    }

    fn carrier_actions(&self, carrier: &str) -> Response {
        self.count("carrier-action");
        let mut actions = vec!["rate", "generate", "pickup", "cancel"];
        if PICKUP_CARRIERS.contains(&carrier) {
            actions.push("pickup_on_generate");
        }
        let data: Vec<Value> = actions
            .iter()
            .enumerate()
            .map(|(i, a)| json!({ "id": i + 1, "name": carrier, "country_code": "CO", "action_id": i + 1, "action_name": a }))
            .collect();
        reply(StatusCode::OK, json!({ "data": data }))
    }

    /// Validates an address as Envia does for Colombia.
    fn address_error(address: &Value) -> Option<&'static str> {
        let city = address["city"].as_str().unwrap_or_default();
        let state = address["state"].as_str().unwrap_or_default();
        if city.len() != 8 || !city.bytes().all(|b| b.is_ascii_digit()) {
            return Some("No se ha encontrado el Codigo DANE de la Ciudad");
        }
        if !STATES.contains(&state) {
            return Some("String is too long");
        }
        if address["country"] != "CO" {
            return Some("country must be CO");
        }
        None
    }

    fn base_price(carrier: &str, weight: f64) -> f64 {
        let index = CARRIERS.iter().position(|c| *c == carrier).unwrap_or(0) as f64;
        10_000.0 + 1_500.0 * index + 1_000.0 * weight.ceil()
    }

    fn weight(body: &Value) -> f64 {
        body["packages"].as_array().map_or(0.0, |p| p.iter().filter_map(|p| p["weight"].as_f64()).sum())
    }

    async fn rate(&self, body: &Value) -> Response {
        self.count("rate");
        let latency = self.with(|s| s.rate_latency);
        tokio::time::sleep(latency).await;
        let carrier = body["shipment"]["carrier"].as_str().unwrap_or_default().to_string();
        if carrier.is_empty() {
            return envia_error(StatusCode::BAD_REQUEST, 1129, "shipment.carrier is required");
        }
        for side in ["origin", "destination"] {
            if let Some(problem) = Self::address_error(&body[side]) {
                return envia_error(StatusCode::OK, 1149, problem);
            }
        }
        if self.with(|s| s.failing.contains(&carrier)) {
            return envia_error(StatusCode::OK, 1125, "Requested service is not available for this route");
        }
        let price = Self::base_price(&carrier, Self::weight(body));
        // Deprisa sends its numbers as strings, as some carriers do.
        let amount = |p: f64| if carrier == "deprisa" { json!(format!("{p:.2}")) } else { json!(p) };
        let data = json!([
            { "carrier": carrier, "service": "ground", "serviceDescription": format!("{carrier} Ground"),
              "deliveryEstimate": "2-3 días", "totalPrice": amount(price), "currency": "COP" },
            { "carrier": carrier, "service": "express", "serviceDescription": format!("{carrier} Express"),
              "deliveryEstimate": "Día siguiente", "totalPrice": amount(price * 1.5), "currency": "COP" },
        ]);
        reply(StatusCode::OK, json!({ "meta": "rate", "data": data }))
    }

    async fn generate(&self, body: &Value) -> Response {
        self.count("generate");
        let (mode, latency) = self.with(|s| (s.mode, s.generate_latency));
        match mode {
            GenerateMode::Stall => {
                tokio::time::sleep(Duration::from_secs(3600)).await;
            }
            GenerateMode::ServerError => return text(StatusCode::BAD_GATEWAY, "Bad Gateway"),
            GenerateMode::Normal => {}
        }
        tokio::time::sleep(latency).await;
        let carrier = body["shipment"]["carrier"].as_str().unwrap_or_default().to_string();
        let service = body["shipment"]["service"].as_str().unwrap_or_default().to_string();
        if !CARRIERS.contains(&carrier.as_str()) || !matches!(service.as_str(), "ground" | "express") {
            return envia_error(StatusCode::OK, 1125, "Service provided not available or incorrect");
        }
        if body["settings"]["printFormat"] != "PDF" || body["settings"]["printSize"].as_str().is_none() {
            return envia_error(StatusCode::BAD_REQUEST, 1129, "settings.printFormat and printSize are required");
        }
        for side in ["origin", "destination"] {
            if let Some(problem) = Self::address_error(&body[side]) {
                return envia_error(StatusCode::OK, 1149, problem);
            }
        }
        let pickup = body["shipment"]["pickup"].clone();
        if !pickup.is_null() {
            let complete = pickup["date"].is_string() && pickup["timeFrom"].is_u64() && pickup["timeTo"].is_u64();
            if !complete || !PICKUP_CARRIERS.contains(&carrier.as_str()) {
                return envia_error(StatusCode::OK, 1300, "Pickup not available for this carrier");
            }
        }
        let mut price = Self::base_price(&carrier, Self::weight(body));
        if service == "express" {
            price *= 1.5;
        }
        let made = self.with(|s| {
            if s.balance < price {
                return None;
            }
            s.balance -= price;
            s.next += 1;
            let tracking = format!("99{:08}", s.next);
            s.labels.insert(
                tracking.clone(),
                Label {
                    carrier: carrier.clone(),
                    service: service.clone(),
                    price,
                    status: "Created".into(),
                    events: vec![],
                    pickup: pickup.clone(),
                },
            );
            Some((tracking, s.next, s.balance))
        });
        let Some((tracking, shipment_id, balance)) = made else {
            return envia_error(StatusCode::OK, 1400, "Insufficient balance to generate the label");
        };
        reply(
            StatusCode::OK,
            json!({ "meta": "generate", "data": [{
                "carrier": carrier, "service": service, "shipmentId": 170_000 + shipment_id,
                "trackingNumber": tracking, "trackingNumbers": [tracking],
                "trackUrl": format!("https://envia.com/rastreo?label={tracking}"),
                "label": format!("https://s3.example/labels/{tracking}.pdf"),
                "totalPrice": price, "currentBalance": balance, "currency": "COP",
            }] }),
        )
    }

    fn track(&self, body: &Value) -> Response {
        self.count("track");
        let numbers: Vec<String> = body["trackingNumbers"]
            .as_array()
            .map(|l| l.iter().filter_map(|n| n.as_str().map(str::to_string)).collect())
            .unwrap_or_default();
        let data: Vec<Value> = self.with(|s| {
            numbers
                .iter()
                .filter_map(|n| {
                    let l = s.labels.get(n)?;
                    Some(json!({
                        "trackingNumber": n, "carrier": l.carrier, "service": l.service,
                        "status": l.status, "eventHistory": l.events,
                    }))
                })
                .collect()
        });
        reply(StatusCode::OK, json!({ "meta": "generaltrack", "data": data }))
    }

    async fn cancel(&self, body: &Value) -> Response {
        self.count("cancel");
        tokio::time::sleep(self.with(|s| s.cancel_latency)).await;
        let number = body["trackingNumber"].as_str().unwrap_or_default().to_string();
        let refunded = self.with(|s| {
            let label = s.labels.get_mut(&number)?;
            if label.status != "Created" {
                return None;
            }
            label.status = "Canceled".into();
            let price = label.price;
            s.balance += price;
            Some(price)
        });
        match refunded {
            None => envia_error(StatusCode::OK, 1115, "Shipment not found or cannot be cancelled"),
            Some(amount) => reply(
                StatusCode::OK,
                json!({ "meta": "cancel", "data": {
                    "carrier": body["carrier"], "trackingNumber": number,
                    "refundedAmount": format!("{amount:.2}"), "balanceReturned": true,
                    "balanceReturnDate": "2026-11-22",
                } }),
            ),
        }
    }
}

fn reply(status: StatusCode, body: Value) -> Response {
    let mut r = Response::new(body.to_string().into());
    *r.status_mut() = status;
    r.headers_mut().insert("content-type", "application/json".parse().unwrap());
    r
}

fn text(status: StatusCode, body: &'static str) -> Response {
    let mut r = Response::new(body.into());
    *r.status_mut() = status;
    r
}

fn envia_error(status: StatusCode, code: u32, message: &str) -> Response {
    reply(status, json!({ "meta": "error", "error": { "code": code, "description": "Error", "message": message } }))
}
