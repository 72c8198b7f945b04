//! An organization with forms, for the forms tests: a host, an organization
//! with a `*` token, and the calls its forms get (the app's, both doors).

use crate::{Host, Method, Reply, Value, json};

/// A host, an organization with a `*` token, and helpers for its forms.
pub struct Site {
    pub host: Host,
    pub org: String,
    pub token: String,
}

impl Site {
    pub async fn open() -> Site {
        Site::open_with(&[]).await
    }

    pub async fn open_with(env: &[(&str, &str)]) -> Site {
        let host = Host::start_with(env).await;
        let (org, token) = host.org_with_token(json!({ "name": "Tienda" })).await;
        Site { host, org, token }
    }

    pub async fn admin(&self, method: Method, tail: &str, body: Option<&Value>) -> Reply {
        self.host.admin(method, &format!("/admin/orgs/{}/forms{tail}", self.org), body).await
    }

    /// A new form; returns (id, public key).
    pub async fn form(&self, body: Value) -> (String, String) {
        let r = self.admin(Method::POST, "", Some(&body)).await;
        assert_eq!(r.status, 201, "{}", r.text);
        let v = r.json();
        (v["id"].as_str().unwrap().to_string(), v["publicKey"].as_str().unwrap().to_string())
    }

    pub fn public_url(&self, id: &str, key: &str) -> String {
        format!("/api/v1/forms/submit/{id}?key={key}")
    }

    /// A public JSON submit.
    pub async fn public(&self, id: &str, key: &str, body: &Value) -> Reply {
        self.host.call(Method::POST, &self.public_url(id, key), None, Some(body)).await
    }

    /// A token-door submit.
    pub async fn submit(&self, id: &str, body: &Value) -> Reply {
        self.host.post(&format!("/api/forms/{id}/submit"), &self.token, body).await
    }

    pub async fn get(&self, path: &str) -> Value {
        let r = self.host.get(path, &self.token).await;
        assert_eq!(r.status, 200, "{path}: {}", r.text);
        r.json()
    }

    pub async fn total(&self, path: &str) -> Value {
        self.get(path).await["pagination"]["total"].clone()
    }
}

pub async fn send(req: reqwest::RequestBuilder) -> Reply {
    let r = req.send().await.expect("sent");
    let (status, headers) = (r.status(), r.headers().clone());
    Reply { status, headers, text: r.text().await.unwrap() }
}
