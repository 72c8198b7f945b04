//! What the public listener serves, path by path, decided on a request's
//! head before its body is read: a request refused there (no valid token, an
//! unknown route, a missing permission, a spent form rate) never has a body
//! held, so a client without a token cannot spend the listener's body budget
//! ([`crate::http::body_budget`]), and one that sent `Expect: 100-continue`
//! over HTTP/1.1 is answered without uploading it.

use std::sync::Arc;

use crate::api::{self, Api};
use crate::http::extract::{Admission, BodyLimits};
use crate::http::{ApiError, ApiRequest, Response};
use crate::state::ServerState;
use crate::tokenless::{self, Tokenless};
use crate::{health, shipping};

/// Who serves an admitted request.
pub enum Target {
    Healthz,
    Readyz,
    OpenApi,
    /// A component route without a token (`/api/v1/...`).
    Tokenless(tokenless::Admitted),
    /// The external API, its caller known.
    Api(api::Admitted),
    /// A provider's tracking webhook (it proves itself in its body).
    ProviderWebhook,
}

/// The public listener's routes.
pub struct PublicListener {
    pub app: Arc<ServerState>,
    pub api: Arc<Api>,
    pub tokenless: Arc<Tokenless>,
    pub limits: BodyLimits,
}

impl PublicListener {
    /// Where `req` goes, with its body's limit; or why it is refused.
    pub fn admit(&self, req: &ApiRequest) -> Admission<Target> {
        let max_body = self.limits.of(None);
        let admitted = |target| Admission { max_body, verdict: Ok(target) };
        match req.path.as_str() {
            "/healthz" => admitted(Target::Healthz),
            "/readyz" => admitted(Target::Readyz),
            p if tokenless::is_tokenless_path(p) => {
                self.tokenless.admit(&self.app, req, &self.limits).map(Target::Tokenless)
            }
            api::openapi::PATH => admitted(Target::OpenApi),
            p if p == "/api" || p.starts_with("/api/") => self.api.admit(&self.app, req, &self.limits).map(Target::Api),
            p if shipping::webhook::is_webhook_path(p) => admitted(Target::ProviderWebhook),
            _ => {
                Admission { max_body, verdict: Err(ApiError::not_found(&format!("Route {} {}", req.method, req.path))) }
            }
        }
    }

    /// Serves an admitted request.
    pub async fn serve(&self, target: Target, req: ApiRequest) -> Response {
        match target {
            Target::Healthz => health::healthz(),
            Target::Readyz => health::readyz(&self.app),
            Target::OpenApi => api::openapi::serve(&req.method),
            Target::Tokenless(admitted) => self.tokenless.dispatch(&self.app, admitted, req).await,
            Target::Api(admitted) => self.api.dispatch(&self.app, admitted, req).await,
            Target::ProviderWebhook => shipping::webhook::receive(&self.app, req).await,
        }
    }
}
