//! The carrier a `plugin test` case scripts. A provider's outbound requests
//! (to a host it declared, or the base URL its integration names:
//! [`BASE_URL`]) never leave the machine: each is answered as the case
//! says, and recorded, so a case can tell what the provider sent.

use std::pin::Pin;
use std::sync::Mutex;

use crm_runtime::HttpClient;
use crm_runtime::bindings::platform::crm::plugin::http::{HttpError, HttpResponse};

/// The base URL (and queries URL) of the test organization's integration.
pub const BASE_URL: &str = "https://carrier.test";
pub const QUERIES_URL: &str = "https://queries.carrier.test";

/// How the carrier answers every request of a case.
#[derive(Debug, Clone, Copy)]
pub enum Answer {
    /// This status, with this JSON body.
    Status(u16, &'static str),
    /// No complete answer within the host's timeout.
    Timeout,
    /// The connection breaks (the request may have arrived).
    Broken,
}

/// One request a provider sent.
#[derive(Debug, Clone)]
pub struct Sent {
    pub url: String,
    pub body: Vec<u8>,
}

pub struct CarrierSim {
    answer: Mutex<Answer>,
    sent: Mutex<Vec<Sent>>,
}

impl Default for CarrierSim {
    fn default() -> CarrierSim {
        CarrierSim { answer: Mutex::new(Answer::Status(200, "{}")), sent: Mutex::default() }
    }
}

impl CarrierSim {
    /// Answers every request from now on with `answer`, and forgets what was sent.
    pub fn script(&self, answer: Answer) {
        *self.answer.lock().expect("sim lock") = answer;
        self.sent.lock().expect("sim lock").clear();
    }

    /// What the provider sent since the last [`CarrierSim::script`].
    pub fn sent(&self) -> Vec<Sent> {
        self.sent.lock().expect("sim lock").clone()
    }
}

impl HttpClient for CarrierSim {
    fn send(
        &self,
        _method: &str,
        url: reqwest::Url,
        _headers: Vec<(String, String)>,
        body: Vec<u8>,
    ) -> Pin<Box<dyn Future<Output = Result<HttpResponse, HttpError>> + Send + '_>> {
        self.sent.lock().expect("sim lock").push(Sent { url: url.to_string(), body });
        let answer = *self.answer.lock().expect("sim lock");
        Box::pin(async move {
            match answer {
                Answer::Status(status, body) => Ok(HttpResponse {
                    status,
                    headers: vec![("content-type".into(), "application/json".into())],
                    body: body.as_bytes().to_vec(),
                }),
                Answer::Timeout => Err(HttpError::Timeout),
                Answer::Broken => Err(HttpError::Network("the carrier closed the connection".into())),
            }
        })
    }
}
