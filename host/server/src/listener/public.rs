//! What the public listener serves, path by path, decided on a request's
//! head before its body is read: a request refused there (no valid token, an
//! unknown route, a missing permission, a spent form rate) never has a body
//! held, so a client without a token cannot spend the listener's body budget
//! ([`crate::http::body_budget`]), and one that sent `Expect: 100-continue`
//! over HTTP/1.1 is answered without uploading it. An edge host checks the
//! same before it forwards a write or waits on a bookmark (`admit_api`,
//! [`Tokenless::admit_on_edge`]).

use std::sync::Arc;

use crate::admin::health;
use crate::api::{self, Api};
use crate::edge::{self, Edge, bookmark};
use crate::http::extract::{Admission, BodyLimits};
use crate::http::{ApiError, ApiRequest, Response};
use crate::shipping;
use crate::state::ServerState;
use crate::tokenless::{self, OnEdge, Tokenless};

/// How logs and metrics name a request an edge host forwarded.
const FORWARDED: &str = "(forwarded to the write host)";

/// Who serves an admitted request.
pub enum Target {
    Healthz,
    Readyz,
    OpenApi,
    /// A component route without a token (`/api/v1/...`).
    Tokenless(Box<tokenless::Admitted>),
    /// The external API, its caller known.
    Api(Box<api::Admitted>),
    /// A provider's tracking webhook (it proves itself in its body).
    ProviderWebhook,
    /// On an edge host, a write: sent whole to the write host.
    Forward,
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
        let edge = self.app.edge.as_ref();
        let forwarded = edge.filter(|edge| edge.forwards(&req.method));
        match req.path.as_str() {
            "/healthz" => admitted(Target::Healthz),
            "/readyz" => admitted(Target::Readyz),
            p if tokenless::is_tokenless_path(p) => match forwarded {
                Some(edge) => self.tokenless.admit_on_edge(&self.app, edge, req, &self.limits).map(|a| match a {
                    OnEdge::Forward => Target::Forward,
                    OnEdge::Here(admitted) => Target::Tokenless(admitted),
                }),
                None => self.tokenless.admit(&self.app, req, &self.limits).map(|a| Target::Tokenless(Box::new(a))),
            },
            api::openapi::PATH => admitted(Target::OpenApi),
            p if p == "/api" || p.starts_with("/api/") => self.admit_api(req),
            p if shipping::webhook::is_webhook_path(p) && forwarded.is_some() => admitted(Target::Forward),
            p if shipping::webhook::is_webhook_path(p) => admitted(Target::ProviderWebhook),
            _ => {
                Admission { max_body, verdict: Err(ApiError::not_found(&format!("Route {} {}", req.method, req.path))) }
            }
        }
    }

    /// An `/api` request's checks ([`Api::admit`]). On an edge host its
    /// caller and route are checked first, where the host reads at once
    /// ([`Edge::checking`]): a write is forwarded only then, with the
    /// route's own body limit, and a read waits for its bookmark only then.
    /// A request refused here never has a body held, forwarded or waited on.
    fn admit_api(&self, req: &ApiRequest) -> Admission<Target> {
        let api = |admitted: api::Admitted| Target::Api(Box::new(admitted));
        let edge = match &self.app.edge {
            Some(edge) if edge::only_reads(&req.method) || edge.forwards(&req.method) => edge,
            // A host that serves a write itself, on the primary, refuses it
            // at once while the primary is known not to answer.
            Some(edge) if !edge.primary_up() => {
                let refused = ApiError::store_unavailable("no database primary answers");
                return Admission { max_body: self.limits.of(None), verdict: Err(refused) };
            }
            _ => return self.api.admit(&self.app, req, &self.limits, None).map(api),
        };
        let checked = self.api.admit(&self.app, req, &self.limits, Some(edge.checking()));
        let verdict = checked.verdict.and_then(|admitted| match edge.forwards(&req.method) {
            true => Ok(Target::Forward),
            false => {
                let checked_on = admitted.reading().cloned().expect("an edge host's admission reads somewhere");
                Ok(api(admitted.reading_from(edge.reading_after(req, &checked_on)?)))
            }
        });
        Admission { max_body: checked.max_body, verdict }
    }

    /// Serves an admitted request. Its answer says how fresh its data was
    /// (`Crm-Bookmark`, on a PostgreSQL store; see [`crate::edge`]).
    pub async fn serve(&self, target: Target, req: ApiRequest) -> Response {
        let reading = match &target {
            Target::Api(admitted) => admitted.reading().cloned(),
            _ => None,
        };
        // A write an edge host serves itself (it has no write host): its
        // bookmark is remembered for its credential, as a forwarded one's
        // is by the forward.
        let serves_a_write = self.app.edge.is_some() && !matches!(target, Target::Forward);
        let writer = (serves_a_write && !edge::only_reads(&req.method)).then(|| bookmark::credential(&req));
        let mut response = match target {
            Target::Healthz => health::healthz(),
            Target::Readyz => health::readyz(&self.app),
            Target::OpenApi => api::openapi::serve(&req.method),
            Target::Tokenless(admitted) => self.tokenless.dispatch(&self.app, *admitted, req).await,
            Target::Api(admitted) => self.api.dispatch(&self.app, *admitted, req).await,
            Target::ProviderWebhook => shipping::webhook::receive(&self.app, req).await,
            // The write host's answer carries its own bookmark.
            Target::Forward => return self.forward(req).await,
        };
        match reading {
            Some(reading) => Edge::stamp(&reading, &mut response),
            None => bookmark::stamp_store(&*self.app.store, &mut response),
        }
        if let (Some(edge), Some(credential), Some(position)) = (&self.app.edge, writer, self.app.store.position()) {
            edge.remember_write(credential, position);
        }
        response
    }

    async fn forward(&self, req: ApiRequest) -> Response {
        let edge = self.app.edge.as_ref().expect("only an edge host forwards");
        edge.forward(&req).await.served_by(FORWARDED.into(), None)
    }
}
