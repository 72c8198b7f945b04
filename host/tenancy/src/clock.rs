//! Time as the API writes it: RFC 3339, UTC, milliseconds.

use chrono::{DateTime, SecondsFormat, Utc};

pub fn now() -> DateTime<Utc> {
    Utc::now()
}

pub fn format(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The current time, formatted.
pub fn now_text() -> String {
    format(now())
}

/// Parses an RFC 3339 time with any offset, as UTC.
pub fn parse(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text).ok().map(|t| t.with_timezone(&Utc))
}

/// A time given in milliseconds since the Unix epoch.
pub fn from_millis(ms: i64) -> Option<DateTime<Utc>> {
    DateTime::from_timestamp_millis(ms)
}
