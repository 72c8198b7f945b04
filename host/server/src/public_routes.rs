//! What the public listener serves, path by path, decided on a request's
//! head before its body is read: a request refused there (no valid token, an
//! unknown route, a missing permission, a spent form rate) never has a body
//! held, so a client without a token cannot spend the listener's body budget
//! ([`crate::http::body_budget`]), and one that sent `Expect: 100-continue`
//! over HTTP/1.1 is answered without uploading it.

use std::sync::Arc;

use crate::api::{self, Api};
use crate::app::App;
use crate::http::extract::{Admission, BodyLimits};
use crate::http::{ApiError, ApiRequest, Response};
use crate::public::{self, PublicDoor};
use crate::{ops, shipping};

/// Who serves an admitted request.
pub enum Target {
    Healthz,
    Readyz,
    OpenApi,
    /// A component route without a token (`/api/v1/...`).
    Door(public::Admitted),
    /// The external API, its caller known.
    Api(api::Admitted),
    /// A provider's tracking webhook (it proves itself in its body).
    ProviderWebhook,
}

/// The public listener's routes.
pub struct PublicRoutes {
    pub app: Arc<App>,
    pub api: Arc<Api>,
    pub door: Arc<PublicDoor>,
    pub limits: BodyLimits,
}

impl PublicRoutes {
    /// Where `req` goes, with its body's limit; or why it is refused.
    pub fn admit(&self, req: &ApiRequest) -> Admission<Target> {
        let max_body = self.limits.of(None);
        let admitted = |target| Admission { max_body, verdict: Ok(target) };
        match req.path.as_str() {
            "/healthz" => admitted(Target::Healthz),
            "/readyz" => admitted(Target::Readyz),
            p if public::is_public_path(p) => self.door.admit(&self.app, req, &self.limits).map(Target::Door),
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
            Target::Healthz => ops::healthz(),
            Target::Readyz => ops::readyz(&self.app),
            Target::OpenApi => api::openapi::serve(&req.method),
            Target::Door(admitted) => self.door.dispatch(&self.app, admitted, req).await,
            Target::Api(admitted) => self.api.dispatch(&self.app, admitted, req).await,
            Target::ProviderWebhook => shipping::webhook::receive(&self.app, req).await,
        }
    }
}
