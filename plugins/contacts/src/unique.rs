//! Unique keys (email, mobile), taken and given back in the same commit as
//! the record that holds them, so that of concurrent requests exactly one
//! wins and no key ever names a contact that was not written; and the
//! counters lists take their totals from.

use crm_sdk::http::Error;
use crm_sdk::store::{self, Condition, Write};

pub fn email_key(email: &str) -> String {
    format!("u/email/{email}")
}

/// The claim of a mobile (its digits): a Colombian number is claimed without
/// the country code, so that `+57 300 111 2233` (what WhatsApp sends) and
/// `300 111 2233` (what a web form gets) find one contact.
pub fn mobile_key(mobile: &str) -> String {
    format!("u/mobile/{}", national_number(mobile))
}

/// The claims an email and a mobile name, email first (the lookup order).
pub fn keys<'a>(email: Option<&'a str>, mobile: Option<&'a str>) -> impl Iterator<Item = String> + 'a {
    email.map(email_key).into_iter().chain(mobile.map(mobile_key))
}

/// A Colombian number's ten national digits when `digits` carries the
/// country code (`57` or `0057` before ten digits; every Colombian number
/// has had ten digits since 2021); otherwise `digits` as they are.
pub fn national_number(digits: &str) -> &str {
    for prefix in ["57", "0057"] {
        if let Some(national) = digits.strip_prefix(prefix)
            && national.len() == 10
        {
            return national;
        }
    }
    digits
}

/// The number of contacts, a counter (decimal text) written in each create's
/// own atomic commit, so a crash at any instant leaves it exact.
pub const COUNT_KEY: &str = "meta/contacts";

/// How many contacts the organization has.
pub fn count() -> Result<u64, Error> {
    crm_sdk::kv::counter(COUNT_KEY)
}

/// The 403 of a full plan.
pub fn limit_reached(limit: u64) -> Error {
    Error::new(403, "PLAN_LIMIT_REACHED", format!("The plan's limit of {limit} contacts is reached"))
        .with("limit", limit)
        .with("resource", "contacts")
}

/// The counter of contacts in one city or state (`family` is `city` or `state`).
pub fn code_count_key(family: &str, code: &str) -> String {
    format!("meta/{family}/{code}")
}

pub fn code_count(family: &str, code: &str) -> Result<u64, Error> {
    crm_sdk::kv::counter(&code_count_key(family, code))
}

/// The contact holding a unique key, if any.
pub fn owner(key: &str) -> Result<Option<String>, Error> {
    Ok(store::get(key.as_bytes())?.map(|v| String::from_utf8_lossy(&v).into_owned()))
}

/// The unique keys one save takes and gives back: conditions and writes of
/// the record's own commit.
#[derive(Default)]
pub struct Claims {
    /// Keys to take, each with the holder it must still have at the commit:
    /// none, or a contact that does not exist (a claim a crash left behind
    /// when claims were written ahead of their record).
    take: Vec<(String, Option<String>)>,
    /// Keys this contact holds and gives up.
    release: Vec<String>,
}

impl Claims {
    pub fn take(&mut self, key: String, holder: Option<String>) {
        self.take.push((key, holder));
    }

    pub fn release(&mut self, key: String) {
        self.release.push(key);
    }

    /// The commit's part for contact `id`.
    pub fn commit_parts(&self, id: &str) -> (Vec<Condition>, Vec<Write>) {
        let mut conditions = Vec::new();
        let mut writes = Vec::new();
        for (key, holder) in &self.take {
            conditions.push(Condition::Equals((key.clone().into_bytes(), holder.clone().map(String::into_bytes))));
            writes.push(Write::Put((key.clone().into_bytes(), id.as_bytes().to_vec())));
        }
        for key in &self.release {
            conditions.push(Condition::Equals((key.clone().into_bytes(), Some(id.as_bytes().to_vec()))));
            writes.push(Write::Delete(key.clone().into_bytes()));
        }
        (conditions, writes)
    }

    /// Whether every key to take still has the holder it was read with: when
    /// a commit failed and this holds, it failed for another reason (the plan's limit).
    pub fn unchanged(&self) -> Result<bool, Error> {
        for (key, holder) in &self.take {
            if owner(key)? != *holder {
                return Ok(false);
            }
        }
        Ok(true)
    }
}
