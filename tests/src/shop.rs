//! A shipping-ready organization for the shipment tests: a host, the Envia
//! simulator, an organization with its Envia integration pointing at the
//! simulator, an origin in Bogotá, and a contact in Medellín.

use std::time::Duration;

use crate::envia_sim::{API_KEY, EnviaSim};
use crate::{Host, Method, Reply, StatusCode, Value, json};

/// The provider timeout the shipment tests run with (the default is 25 s).
pub const PROVIDER_TIMEOUT_MS: &str = "1500";

pub struct Shop {
    pub host: Host,
    pub sim: EnviaSim,
    pub org: String,
    pub token: String,
    /// A contact in Medellín (05001) with a street address.
    pub contact: String,
}

/// A package of 2 kg.
pub fn package() -> Value {
    json!({ "content": "Ropa", "weight": 2, "dimensions": { "length": 30, "width": 20, "height": 10 }, "declaredValue": 150000 })
}

pub fn origin() -> Value {
    json!({ "name": "Bodega Central", "phone": "3001234567", "street": "Calle 10 # 20-30", "cityCode": "11001", "idNumber": "900123456" })
}

impl Shop {
    /// A host with a short provider timeout and no scheduler, and a shop on it.
    pub async fn open() -> Shop {
        Shop::open_with(&[]).await
    }

    /// A shop on a host with extra configuration (it wins over the defaults).
    pub async fn open_with(env: &[(&str, &str)]) -> Shop {
        let mut all = vec![("CRM_PROVIDER_TIMEOUT_MS", PROVIDER_TIMEOUT_MS), ("CRM_TRACKING_REFRESH_MS", "0")];
        all.extend_from_slice(env);
        let sim = EnviaSim::start().await;
        let host = Host::start_with(&all).await;
        Shop::on(host, sim).await
    }

    /// A new shop (organization, integration, origin, contact) on a running host.
    pub async fn on(host: Host, sim: EnviaSim) -> Shop {
        let (org, token) = host.org_with_token(json!({ "name": "Tienda" })).await;
        configure(&host, &org, &sim).await;
        let contact = create_contact(&host, &token, "cliente@tienda.co").await;
        Shop { host, sim, org, token, contact }
    }

    /// Another shop (organization) on the same host and simulator; it does
    /// not own the host.
    pub async fn on_same_host(shop: &Shop) -> OtherShop<'_> {
        let (org, token) = shop.host.org_with_token(json!({ "name": "Otra tienda" })).await;
        configure(&shop.host, &org, &shop.sim).await;
        OtherShop { host: &shop.host, sim: &shop.sim, org, token }
    }

    pub async fn post(&self, path: &str, body: &Value) -> Reply {
        self.host.post(path, &self.token, body).await
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.host.get(path, &self.token).await
    }

    /// `POST /api/shipments` for the shop's contact with coordinadora ground.
    pub async fn generate(&self, key: Option<&str>) -> Reply {
        self.post("/api/shipments", &self.label_body(key)).await
    }

    pub fn label_body(&self, key: Option<&str>) -> Value {
        let mut body = json!({ "contactId": self.contact, "carrier": "coordinadora", "service": "ground", "packages": [package()] });
        if let Some(k) = key {
            body["idempotencyKey"] = json!(k);
        }
        body
    }

    /// The webhook URL of the shop's Envia integration.
    pub async fn webhook_url(&self) -> String {
        webhook_url(&self.host, &self.org, &self.sim).await
    }
}

/// A second organization on a shop's host.
pub struct OtherShop<'a> {
    pub host: &'a Host,
    pub sim: &'a EnviaSim,
    pub org: String,
    pub token: String,
}

impl OtherShop<'_> {
    pub async fn webhook_url(&self) -> String {
        webhook_url(self.host, &self.org, self.sim).await
    }
}

/// The webhook URL of `org`'s Envia integration (setting it again keeps the URL).
pub async fn webhook_url(host: &Host, org: &str, sim: &EnviaSim) -> String {
    let path = connect_envia(host, org, sim).await["webhookPath"].as_str().unwrap().to_string();
    format!("{}{path}", host.api)
}

/// Points `org`'s Envia integration at the simulator and sets its origin.
pub async fn configure(host: &Host, org: &str, sim: &EnviaSim) {
    connect_envia(host, org, sim).await;
    let r = host.admin(Method::PUT, &format!("/admin/orgs/{org}/shipping/origin"), Some(&origin())).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
}

/// Sets `org`'s Envia integration to the simulator; answers the integration.
async fn connect_envia(host: &Host, org: &str, sim: &EnviaSim) -> Value {
    let body = json!({ "apiKey": API_KEY, "baseUrl": sim.url });
    let r = host.admin(Method::PUT, &format!("/admin/orgs/{org}/integrations/envia"), Some(&body)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    r.json()["data"].clone()
}

/// A contact in Medellín with a street address; returns its id.
pub async fn create_contact(host: &Host, token: &str, email: &str) -> String {
    let body = json!({ "email": email, "firstName": "Ana", "lastName": "Gómez", "phone": "6041234567",
                       "cityCode": "05001", "address": "Cra 45 # 12-08", "idNumber": "1020304050" });
    let r = host.post("/api/contacts", token, &body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.json()["data"]["id"].as_str().unwrap().to_string()
}

/// A deal at stage `new`, opened by a token submission (with `email`) of a
/// new form that opens deals; returns its id.
pub async fn open_deal(host: &Host, org: &str, token: &str, email: &str) -> String {
    let body = json!({ "name": "Cotización", "createDeal": true });
    let form = host.admin(Method::POST, &format!("/admin/orgs/{org}/forms"), Some(&body)).await;
    assert_eq!(form.status, StatusCode::CREATED, "{}", form.text);
    let form = form.json()["id"].as_str().unwrap().to_string();
    let r =
        host.post(&format!("/api/forms/{form}/submit"), token, &json!({ "email": email, "nombre": "Ana Gómez" })).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.json()["data"]["dealId"].as_str().unwrap().to_string()
}

/// Waits until `check` holds, up to `within`.
pub async fn eventually<F, Fut>(within: Duration, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let until = std::time::Instant::now() + within;
    while std::time::Instant::now() < until {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}
