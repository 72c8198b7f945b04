//! `crm-host admin ...`: a thin command-line client of the admin API.
//!
//! The admin token comes from `CRM_ADMIN_TOKEN`, else from the data dir of the
//! host (where the first start stored the generated one).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use crm_server::admin::token as admin_token;

use crate::console::{print_answer, print_note};

#[derive(Debug, Args)]
pub struct AdminArgs {
    #[command(flatten)]
    reach: Reach,
    #[command(subcommand)]
    command: AdminCommand,
}

/// How a client reaches a running host's admin API.
#[derive(Debug, Args)]
pub struct Reach {
    /// Base URL of the admin API.
    #[arg(long, env = "CRM_ADMIN_URL", default_value = "http://127.0.0.1:8081")]
    url: String,
    /// The host's data dir, to read a generated admin token from.
    #[arg(long, env = "CRM_DATA_DIR", default_value = "./data")]
    data_dir: PathBuf,
}

#[derive(Debug, Subcommand)]
enum AdminCommand {
    /// Organizations.
    #[command(subcommand)]
    Orgs(OrgsCommand),
    /// Users of an organization.
    #[command(subcommand)]
    Users(UsersCommand),
    /// API tokens of an organization.
    #[command(subcommand)]
    Tokens(TokensCommand),
    /// The loaded components: `list`, or `reload` the plugins dir without a restart.
    #[command(subcommand)]
    Plugins(PluginsCommand),
    /// Contacts of an organization: `reindex ORG` writes the search index of
    /// contacts stored before it existed.
    #[command(subcommand)]
    Contacts(ContactsCommand),
    /// Any admin call, e.g. `call PATCH /admin/orgs/ID '{"plan":"free"}'`.
    Call { method: String, path: String, body: Option<String> },
}

#[derive(Debug, Subcommand)]
enum OrgsCommand {
    List,
    Create {
        #[arg(long)]
        name: String,
        #[arg(long)]
        plan: Option<String>,
    },
    Show {
        id: String,
    },
    Update {
        id: String,
        #[arg(long)]
        name: Option<String>,
        #[arg(long)]
        plan: Option<String>,
        /// `module=on` or `module=off`; repeatable.
        #[arg(long = "module")]
        modules: Vec<String>,
        #[arg(long)]
        contact_limit: Option<u64>,
    },
    Delete {
        id: String,
    },
}

#[derive(Debug, Subcommand)]
enum ContactsCommand {
    Reindex { org: String },
}

#[derive(Debug, Subcommand)]
enum PluginsCommand {
    List,
    Reload,
}

#[derive(Debug, Subcommand)]
enum UsersCommand {
    Create {
        org: String,
        #[arg(long)]
        email: String,
        #[arg(long)]
        first_name: Option<String>,
        #[arg(long)]
        last_name: Option<String>,
        #[arg(long)]
        role: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
enum TokensCommand {
    Create {
        org: String,
        #[arg(long)]
        name: String,
        /// Repeatable; defaults to `*`.
        #[arg(long = "permission", default_value = "*")]
        permissions: Vec<String>,
        #[arg(long)]
        expires_at: Option<String>,
        #[arg(long)]
        user_id: Option<String>,
    },
    Revoke {
        org: String,
        id: String,
    },
}

/// Runs one admin command; prints the answer's JSON. Fails on a non-2xx answer.
pub async fn run(args: AdminArgs) -> Result<(), Box<dyn std::error::Error>> {
    let admin = Client::connect(&args.reach)?;
    if let AdminCommand::Contacts(ContactsCommand::Reindex { org }) = &args.command {
        return reindex(&admin, org).await;
    }
    let (method, path, body) = request_of(args.command)?;
    let answer = admin.call(&method, &path, body).await?;
    if !answer.is_null() {
        print_answer(format_args!("{}", serde_json::to_string_pretty(&answer)?))?;
    }
    Ok(())
}

/// The admin API, with the token.
pub struct Client {
    url: String,
    token: String,
    http: reqwest::Client,
}

impl Client {
    /// The admin API `reach` names, with the token from `CRM_ADMIN_TOKEN`,
    /// else from the data dir.
    pub fn connect(reach: &Reach) -> Result<Client, Box<dyn std::error::Error>> {
        let token = std::env::var("CRM_ADMIN_TOKEN")
            .ok()
            .filter(|t| !t.trim().is_empty())
            .or_else(|| admin_token::read(&reach.data_dir))
            .ok_or("no admin token: set CRM_ADMIN_TOKEN or --data-dir to the host's data dir")?;
        Ok(Client { url: reach.url.trim_end_matches('/').to_string(), token, http: reqwest::Client::new() })
    }

    /// A GET whose answer is bytes, not JSON: the body and its headers.
    pub async fn octets(
        &self,
        path: &str,
    ) -> Result<(Vec<u8>, reqwest::header::HeaderMap), Box<dyn std::error::Error>> {
        let url = format!("{}{path}", self.url);
        let response = self.http.get(&url).bearer_auth(self.token.trim()).send().await;
        let response = response.map_err(|e| format!("cannot reach the admin API at {url}: {e}"))?;
        let (status, headers) = (response.status(), response.headers().clone());
        let body = response.bytes().await?;
        match status.is_success() {
            true => Ok((body.to_vec(), headers)),
            false => Err(format!("{status}: {}", String::from_utf8_lossy(&body)).into()),
        }
    }

    /// One call: the answer's JSON (its text as a string when it is not
    /// JSON, null when empty), or an error naming the status.
    pub async fn call(
        &self,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, Box<dyn std::error::Error>> {
        let url = format!("{}{path}", self.url);
        let mut request = self.http.request(method.parse()?, &url).bearer_auth(self.token.trim());
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.map_err(|e| format!("cannot reach the admin API at {url}: {e}"))?;
        let status = response.status();
        let text = response.text().await?;
        let answer = match text.is_empty() {
            true => Value::Null,
            false => serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text)),
        };
        match status.is_success() {
            true => Ok(answer),
            false => Err(format!("{status}: {}", serde_json::to_string_pretty(&answer)?).into()),
        }
    }
}

/// `contacts reindex ORG`: the reindex call again from each answer's cursor
/// until every contact is indexed.
async fn reindex(admin: &Client, org: &str) -> Result<(), Box<dyn std::error::Error>> {
    let (mut after, mut indexed) = (Value::Null, 0u64);
    loop {
        let path = format!("/admin/orgs/{org}/contacts/reindex");
        let answer = admin.call("POST", &path, Some(json!({ "after": after }))).await?;
        indexed += answer["indexed"].as_u64().unwrap_or(0);
        after = answer["next"].clone();
        if after.is_null() {
            print_answer(format_args!("{}", json!({ "success": true, "indexed": indexed })))?;
            return Ok(());
        }
        print_note(format_args!("indexed {indexed} contacts"));
    }
}

fn request_of(command: AdminCommand) -> Result<(String, String, Option<Value>), String> {
    let call = |m: &str, p: String, b: Option<Value>| Ok((m.to_string(), p, b));
    match command {
        AdminCommand::Orgs(OrgsCommand::List) => call("GET", "/admin/orgs".into(), None),
        AdminCommand::Plugins(PluginsCommand::List) => call("GET", "/admin/plugins".into(), None),
        AdminCommand::Plugins(PluginsCommand::Reload) => call("POST", "/admin/plugins/reload".into(), None),
        AdminCommand::Orgs(OrgsCommand::Create { name, plan }) => {
            call("POST", "/admin/orgs".into(), Some(json!({ "name": name, "plan": plan })))
        }
        AdminCommand::Orgs(OrgsCommand::Show { id }) => call("GET", format!("/admin/orgs/{id}"), None),
        AdminCommand::Orgs(OrgsCommand::Update { id, name, plan, modules, contact_limit }) => {
            let mut body = json!({});
            if let Some(name) = name {
                body["name"] = json!(name);
            }
            if let Some(plan) = plan {
                body["plan"] = json!(plan);
            }
            for m in modules {
                let (module, state) = m.split_once('=').ok_or(format!("--module {m}: use module=on or module=off"))?;
                body["modules"][module] = json!(matches!(state, "on" | "true" | "1"));
            }
            if let Some(n) = contact_limit {
                body["limits"] = json!({ "contacts": n });
            }
            call("PATCH", format!("/admin/orgs/{id}"), Some(body))
        }
        AdminCommand::Orgs(OrgsCommand::Delete { id }) => call("DELETE", format!("/admin/orgs/{id}"), None),
        AdminCommand::Users(UsersCommand::Create { org, email, first_name, last_name, role }) => call(
            "POST",
            format!("/admin/orgs/{org}/users"),
            Some(json!({ "email": email, "firstName": first_name, "lastName": last_name, "role": role })),
        ),
        AdminCommand::Tokens(TokensCommand::Create { org, name, permissions, expires_at, user_id }) => call(
            "POST",
            format!("/admin/orgs/{org}/tokens"),
            Some(json!({ "name": name, "permissions": permissions, "expiresAt": expires_at, "userId": user_id })),
        ),
        AdminCommand::Tokens(TokensCommand::Revoke { org, id }) => {
            call("DELETE", format!("/admin/orgs/{org}/tokens/{id}"), None)
        }
        AdminCommand::Contacts(ContactsCommand::Reindex { .. }) => Err("reindex is a loop of calls".into()),
        AdminCommand::Call { method, path, body } => {
            let body =
                body.map(|b| serde_json::from_str(&b).map_err(|e| format!("the body is not JSON: {e}"))).transpose()?;
            call(&method.to_uppercase(), path, body)
        }
    }
}
