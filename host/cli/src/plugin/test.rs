//! `crm-host plugin test FILE.wasm [--json]`: runs a component in a host's
//! runtime with the cases its kind must pass, and reports each.
//!
//! A provider is called as the host calls it (a fresh instance bound to an
//! organization whose integration points at [`carrier_sim::BASE_URL`], under
//! the provider timeout), with the carrier's answers scripted by each case.
//! What matters most is the outcome when a label may or may not exist: a
//! carrier that refused (4xx) is `rejected`, and the host may try again; a
//! carrier that failed after taking the request (5xx), did not answer, or
//! dropped the connection is `unknown-outcome`, and the host must not buy a
//! second label. A case about the carrier's answers does not apply to a
//! provider that sent no request. A module's routes that need no parameter
//! are called as the API would call them, by a token with every permission,
//! one with only the route's, and another organization.

use std::error::Error;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crm_runtime::bindings::platform::crm::plugin::shipping_types::{
    Address, Failure, LabelRequest, Parcel, ProviderError, Quote, QuoteRequest,
};
use crm_runtime::bindings::platform::crm::plugin::types;
use crm_runtime::{CallContext, Kind, LoadedModule};
use serde_json::json;

use super::carrier_sim::{self, Answer, CarrierSim};
use super::scratch::{PROVIDER_TIMEOUT, Scratch};

/// A case's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Pass,
    Fail,
    NotApplicable,
}

struct Outcome {
    case: String,
    verdict: Verdict,
    detail: String,
}

fn outcome(case: impl Into<String>, verdict: Verdict, detail: impl Into<String>) -> Outcome {
    Outcome { case: case.into(), verdict, detail: detail.into() }
}

pub async fn run(file: &Path, as_json: bool, cache: Option<&Path>) -> Result<(), Box<dyn Error>> {
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let carrier = Arc::new(CarrierSim::default());
    let scratch = Scratch::new(carrier.clone(), cache)?;
    let module = scratch
        .load(file, &bytes)
        .await?
        .map_err(|why| format!("{} cannot be loaded (crm-host plugin check says why):\n{why}", file.display()))?;
    let ctx = scratch.organization(&module)?;
    let outcomes = match module.kind {
        Kind::Provider => Provider { scratch: &scratch, carrier: &carrier, module: &module, ctx }.cases().await,
        Kind::Module => module_cases(&scratch, &module, ctx).await,
    };
    let failed = outcomes.iter().filter(|o| o.verdict == Verdict::Fail).count();
    report(&module, &outcomes, as_json);
    if failed > 0 {
        return Err(format!("{failed} of {} cases failed", outcomes.len()).into());
    }
    Ok(())
}

fn report(module: &LoadedModule, outcomes: &[Outcome], as_json: bool) {
    let count = |v: Verdict| outcomes.iter().filter(|o| o.verdict == v).count();
    let (passed, failed, not_applicable) = (count(Verdict::Pass), count(Verdict::Fail), count(Verdict::NotApplicable));
    let label = |v: Verdict| match v {
        Verdict::Pass => "pass",
        Verdict::Fail => "fail",
        Verdict::NotApplicable => "n/a",
    };
    if as_json {
        let cases: Vec<_> = outcomes
            .iter()
            .map(|o| json!({ "case": o.case, "result": label(o.verdict), "detail": o.detail }))
            .collect();
        let component = json!({ "name": module.name, "version": module.version, "kind": module.kind.as_str() });
        let report = json!({ "component": component, "passed": passed, "failed": failed,
                             "notApplicable": not_applicable, "cases": cases });
        println!("{report:#}");
        return;
    }
    println!("component: {} {} ({})", module.name, module.version, module.kind.as_str());
    for o in outcomes {
        println!("{:<4}  {}: {}", label(o.verdict).to_uppercase(), o.case, o.detail);
    }
    println!("result: {passed} passed, {failed} failed, {not_applicable} not applicable");
}

/// How one provider call ended, as the host would see it.
#[derive(Debug)]
enum Answered<T> {
    Done(T),
    Rejected(Failure),
    Unknown(Failure),
    /// A trap: the host takes it as an unknown outcome, but it is a bug.
    Trapped(String),
    TimedOut,
}

impl<T> Answered<T> {
    fn of<E: std::fmt::Display>(
        answer: Result<Result<Result<T, ProviderError>, E>, tokio::time::error::Elapsed>,
    ) -> Self {
        match answer {
            Err(_) => Answered::TimedOut,
            Ok(Err(trap)) => Answered::Trapped(format!("{trap:#}")),
            Ok(Ok(Ok(done))) => Answered::Done(done),
            Ok(Ok(Err(ProviderError::Rejected(f)))) => Answered::Rejected(f),
            Ok(Ok(Err(ProviderError::UnknownOutcome(f)))) => Answered::Unknown(f),
        }
    }

    /// A trap or a timeout: what no answer of a carrier excuses.
    fn broken(&self) -> Option<String> {
        match self {
            Answered::Trapped(why) => Some(format!("it trapped: {why}")),
            Answered::TimedOut => Some(format!("it did not answer within {}s", limit().as_secs())),
            _ => None,
        }
    }

    fn said(&self) -> String {
        match self {
            Answered::Done(_) => "answered with a result".into(),
            Answered::Rejected(f) => format!("answered rejected ({}: {})", f.code, f.message),
            Answered::Unknown(f) => format!("answered unknown-outcome ({}: {})", f.code, f.message),
            other => other.broken().unwrap_or_default(),
        }
    }
}

/// How long one provider call may take: the host's provider timeout and
/// the margin it gives a provider to report its own timed-out request.
fn limit() -> Duration {
    PROVIDER_TIMEOUT + Duration::from_secs(1)
}

/// Calls one export of a fresh instance of the provider.
macro_rules! call {
    ($provider:expr, $method:ident $(, $arg:expr)*) => {{
        match $provider.scratch.runtime.provider_instance(Arc::new($provider.ctx.clone()), &$provider.module.name).await {
            Err(ProviderError::Rejected(f)) => Answered::Rejected(f),
            Err(ProviderError::UnknownOutcome(f)) => Answered::Unknown(f),
            Ok((mut store, instance)) => {
                let call = instance.crm_plugin_provider().$method(&mut store $(, $arg)*);
                Answered::of(tokio::time::timeout(limit(), call).await)
            }
        }
    }};
}

struct Provider<'a> {
    scratch: &'a Scratch,
    carrier: &'a CarrierSim,
    module: &'a LoadedModule,
    ctx: CallContext,
}

/// What a case expects of a label the carrier's answer left unsure or refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Rejected,
    Unknown,
}

impl Provider<'_> {
    async fn cases(&self) -> Vec<Outcome> {
        let mut outcomes = Vec::new();
        self.carrier.script(Answer::Status(200, "{}"));
        let sample = quote();
        let rates = call!(self, call_rates, &sample);
        outcomes.push(match rates.broken() {
            Some(why) => outcome("rates: an answer it cannot read is a failure, not a trap", Verdict::Fail, why),
            None => outcome("rates: an answer it cannot read is a failure, not a trap", Verdict::Pass, rates.said()),
        });
        let (carrier, service) = self.carrier_and_service(rates).await;
        let label = |reference: &str| label(&carrier, &service, reference);

        let refusals = [
            (
                "generate: the carrier refuses (HTTP 400): rejected",
                Answer::Status(400, r#"{"error":"invalid"}"#),
                Expect::Rejected,
            ),
            (
                "generate: the carrier fails after taking it (HTTP 503): unknown outcome",
                Answer::Status(503, "{}"),
                Expect::Unknown,
            ),
            ("generate: the carrier does not answer in time: unknown outcome", Answer::Timeout, Expect::Unknown),
            ("generate: the connection breaks: unknown outcome", Answer::Broken, Expect::Unknown),
        ];
        for (case, answer, expected) in refusals {
            self.carrier.script(answer);
            let request = label("plugin-test-1");
            let answered = call!(self, call_generate, &request);
            outcomes.push(self.judge(case, &answered, expected));
        }

        outcomes.push(self.retry(&label("plugin-test-2")).await);

        let case = "track: an unknown tracking number is no trap";
        self.carrier.script(Answer::Status(404, r#"{"error":"not found"}"#));
        let unknown = vec!["PLUGINTEST0".to_string()];
        let tracked = call!(self, call_track, &unknown);
        outcomes.push(match tracked.broken() {
            Some(why) => outcome(case, Verdict::Fail, why),
            None => outcome(case, Verdict::Pass, tracked.said()),
        });

        self.carrier.script(Answer::Status(400, r#"{"error":"invalid"}"#));
        let cancelled = call!(self, call_cancel, &carrier, "PLUGINTEST0");
        outcomes.push(self.judge("cancel: the carrier refuses (HTTP 400): rejected", &cancelled, Expect::Rejected));

        outcomes.push(self.webhook().await);
        outcomes
    }

    /// A carrier and service to ask labels of: the first rate's, else the
    /// first carrier and `standard`.
    async fn carrier_and_service(&self, rates: Answered<Quote>) -> (String, String) {
        if let Answered::Done(quote) = &rates
            && let Some(rate) = quote.rates.first()
        {
            return (rate.carrier.clone(), rate.service.clone());
        }
        self.carrier.script(Answer::Status(200, "{}"));
        let carriers = call!(self, call_carriers);
        let first = match carriers {
            Answered::Done(carriers) => carriers.into_iter().next(),
            _ => None,
        };
        (first.unwrap_or_else(|| "carrier".into()), "standard".into())
    }

    /// The verdict on a call made while the carrier answered as scripted.
    fn judge<T>(&self, case: &str, answered: &Answered<T>, expected: Expect) -> Outcome {
        if let Some(why) = answered.broken() {
            return outcome(case, Verdict::Fail, why);
        }
        if self.carrier.sent().is_empty() {
            return outcome(case, Verdict::NotApplicable, format!("it sent no request ({})", answered.said()));
        }
        let wanted = match expected {
            Expect::Rejected => "rejected",
            Expect::Unknown => "unknown-outcome",
        };
        match (answered, expected) {
            (Answered::Rejected(_), Expect::Rejected) | (Answered::Unknown(_), Expect::Unknown) => {
                outcome(case, Verdict::Pass, answered.said())
            }
            _ => outcome(case, Verdict::Fail, format!("{}; it must answer {wanted}", answered.said())),
        }
    }

    /// A label asked twice with one reference (the host's retry): the
    /// carrier must be able to tell, so the reference reaches it; a provider
    /// without a carrier gives the same label twice.
    async fn retry(&self, request: &LabelRequest) -> Outcome {
        let case = "generate: a retry carries the same reference, so no second label is bought";
        self.carrier.script(Answer::Status(200, "{}"));
        let first = call!(self, call_generate, request);
        let second = call!(self, call_generate, request);
        if let Some(why) = first.broken().or(second.broken()) {
            return outcome(case, Verdict::Fail, why);
        }
        let sent = self.carrier.sent();
        if !sent.is_empty() {
            let carried = |s: &carrier_sim::Sent| {
                s.url.contains(&request.reference) || String::from_utf8_lossy(&s.body).contains(&request.reference)
            };
            return match sent.iter().all(carried) {
                true => outcome(case, Verdict::Pass, "every request to the carrier names the reference"),
                false => outcome(case, Verdict::Fail, "a request to the carrier does not name the reference"),
            };
        }
        match (&first, &second) {
            (Answered::Done(a), Answered::Done(b)) if a.tracking_number == b.tracking_number => {
                outcome(case, Verdict::Pass, format!("both times {}", a.tracking_number))
            }
            (Answered::Done(a), Answered::Done(b)) => outcome(
                case,
                Verdict::Fail,
                format!("two labels for one reference: {} and {}", a.tracking_number, b.tracking_number),
            ),
            _ => outcome(case, Verdict::NotApplicable, format!("it sent no request ({})", first.said())),
        }
    }

    async fn webhook(&self) -> Outcome {
        let case = "webhook: a body it cannot read is a failure, not a trap or an update";
        let started = self.scratch.runtime.provider_instance(Arc::new(self.ctx.clone()), &self.module.name).await;
        let Ok((mut store, instance)) = started else {
            return outcome(case, Verdict::Fail, "it could not be started");
        };
        let no_headers = Vec::new();
        let call = instance.crm_plugin_provider().call_parse_webhook(&mut store, &no_headers, b"not json");
        match tokio::time::timeout(limit(), call).await {
            Err(_) => outcome(case, Verdict::Fail, "it did not answer in time"),
            Ok(Err(trap)) => outcome(case, Verdict::Fail, format!("it trapped: {trap:#}")),
            Ok(Ok(Ok(updates))) if !updates.is_empty() => {
                outcome(case, Verdict::Fail, format!("it read {} updates from nothing", updates.len()))
            }
            Ok(Ok(Ok(_))) => outcome(case, Verdict::Pass, "no updates"),
            Ok(Ok(Err(f))) => outcome(case, Verdict::Pass, format!("a failure ({}: {})", f.code, f.message)),
        }
    }
}

/// Each route without parameters, called as the API would, by three
/// callers: a token with every permission, a token with only the permission
/// the route declares, and another organization (its store empty). Each
/// must answer below 500 within the route's deadline and the memory cap.
/// The other routes need what only their author knows.
async fn module_cases(scratch: &Scratch, module: &Arc<LoadedModule>, ctx: CallContext) -> Vec<Outcome> {
    let mut outcomes = Vec::new();
    for route in &module.routes {
        let name = format!("{} {}", route.method, route.path);
        if route.path.contains('{') || route.method != "GET" {
            let why = "it needs parameters or a body: test it through the API";
            outcomes.push(outcome(format!("{name}, called as the API calls it"), Verdict::NotApplicable, why));
            continue;
        }
        let only = route.permission.iter().cloned().collect::<Vec<_>>();
        let narrow = CallContext { permissions: only, ..ctx.clone() };
        let other = match scratch.organization(module) {
            Ok(other) => other,
            Err(e) => {
                outcomes.push(outcome(format!("{name}, for another organization"), Verdict::Fail, e.to_string()));
                continue;
            }
        };
        let only_label = route.permission.as_deref().map_or("no permission".into(), |p| format!("only {p}"));
        let callers = [
            ("for a token with every permission".to_string(), ctx.clone()),
            (format!("for a token with {only_label}"), narrow),
            ("for another organization, its store empty".to_string(), other),
        ];
        let request = types::Request {
            method: route.method.clone(),
            path: route.path.clone(),
            path_params: Vec::new(),
            query: Vec::new(),
            headers: Vec::new(),
            body: Vec::new(),
        };
        let deadline = route.deadline_ms.map_or(Duration::from_secs(5), |ms| Duration::from_millis(ms.into()));
        for (who, caller) in callers {
            let started = Instant::now();
            let answered = scratch.runtime.handle(module, Some(caller), request.clone(), deadline).await;
            let took = started.elapsed().as_millis();
            let case = format!("{name}, {who}");
            outcomes.push(match answered {
                Ok((response, _)) if response.status < 500 => {
                    outcome(case, Verdict::Pass, format!("{} in {took} ms", response.status))
                }
                Ok((response, _)) => outcome(case, Verdict::Fail, format!("{} in {took} ms", response.status)),
                Err(trap) => outcome(case, Verdict::Fail, format!("it failed: {trap:#}")),
            });
        }
    }
    outcomes
}

/// A Medellín shop sending 2 kg to Bogotá.
fn quote() -> QuoteRequest {
    QuoteRequest {
        origin: address("05001", "Medellín", "05", "Antioquia"),
        destination: address("11001", "Bogotá, D.C.", "11", "Bogotá, D.C."),
        packages: vec![parcel()],
    }
}

fn label(carrier: &str, service: &str, reference: &str) -> LabelRequest {
    let QuoteRequest { origin, destination, packages } = quote();
    LabelRequest {
        origin,
        destination,
        packages,
        carrier: carrier.into(),
        service: service.into(),
        reference: reference.into(),
        cash_on_delivery: None,
        insurance: None,
        pickup: None,
    }
}

fn address(city_code: &str, city: &str, state_code: &str, state: &str) -> Address {
    Address {
        name: "Ana Gómez".into(),
        company: None,
        email: Some("ana@example.co".into()),
        phone: Some("3001234567".into()),
        street: "Calle 10 # 20-30".into(),
        number: None,
        district: None,
        city_code: city_code.into(),
        dane8: format!("{city_code}000"),
        city_name: city.into(),
        state_code: state_code.into(),
        state_name: state.into(),
        country: "CO".into(),
        postal_code: None,
        id_number: Some("900123456".into()),
    }
}

fn parcel() -> Parcel {
    Parcel { content: "Ropa".into(), weight: 2.0, length: 30.0, width: 20.0, height: 10.0, declared_value: 150_000.0 }
}
