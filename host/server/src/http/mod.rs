//! HTTP plumbing shared by the public and the admin listeners: the request as
//! handlers see it, responses, error bodies, content codings, and path routing.

pub mod body_budget;
pub mod encoding;
pub mod error;
pub mod extract;
pub mod forwarded;
pub mod request;
pub mod response;
pub mod router;

pub use error::ApiError;
pub use request::ApiRequest;
pub use response::Response;
