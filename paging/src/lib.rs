//! The paging rule every list of the API shares, the host's and the
//! components' alike: how `page` and `limit` are read. Pure and without
//! dependencies, so both the host (the webhook deliveries' list) and the
//! guest SDK (every component's list, built for `wasm32-wasip2`) build this
//! one copy, and a client meets the same bounds and refusals everywhere.
//!
//! `page` is as sent (1 when absent or below 1, at most [`MAX_PAGE`]);
//! `limit` is clamped to `1..=max` (`default` when absent); either one sent
//! but not a whole number is refused. Offsets saturate: no client number wraps.

/// Largest `page` a list accepts: the largest whole number a JSON client
/// reads exactly (2^53 - 1).
pub const MAX_PAGE: u64 = (1 << 53) - 1;

/// The page a list request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paging {
    pub page: u64,
    pub limit: usize,
}

/// Why `page` or `limit` was refused: the field, what to tell the client,
/// and the bound when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub field: &'static str,
    pub message: String,
    pub max: Option<u64>,
}

impl Paging {
    /// Reads the query values `page` and `limit` (as sent, `None` when absent).
    pub fn parse(page: Option<&str>, limit: Option<&str>, default: usize, max: usize) -> Result<Paging, Refusal> {
        let page = match whole_number(page, "page")? {
            Some(p) if p > MAX_PAGE as i128 => {
                return Err(Refusal {
                    field: "page",
                    message: format!("page must be a whole number from 1 to {MAX_PAGE}"),
                    max: Some(MAX_PAGE),
                });
            }
            Some(p) if p >= 1 => p as u64,
            _ => 1,
        };
        let limit = whole_number(limit, "limit")?.map_or(default, |l| l.clamp(1, max as i128) as usize);
        Ok(Paging { page, limit })
    }

    /// How many items come before this page.
    pub fn offset(&self) -> u64 {
        (self.page - 1).saturating_mul(self.limit as u64)
    }

    /// How many pages `total` items make.
    pub fn pages(&self, total: u64) -> u64 {
        total.div_ceil(self.limit.max(1) as u64)
    }
}

/// A query value as a whole number (`-3`, `0`, `42`; beyond i128 saturates).
/// Only a sign and digits: a space (` 3`, a `+` left unescaped in a URL) is
/// refused, as the schema's integer says.
fn whole_number(text: Option<&str>, field: &'static str) -> Result<Option<i128>, Refusal> {
    let Some(text) = text else { return Ok(None) };
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Refusal { field, message: format!("{field} must be a whole number"), max: None });
    }
    let magnitude = digits.parse::<i128>().unwrap_or(i128::MAX);
    Ok(Some(if text.starts_with('-') { -magnitude } else { magnitude }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(page: Option<&str>, limit: Option<&str>) -> Result<Paging, Refusal> {
        Paging::parse(page, limit, 20, 100)
    }

    #[test]
    fn absent_small_and_large_values() {
        assert_eq!(parse(None, None), Ok(Paging { page: 1, limit: 20 }));
        assert_eq!(parse(Some("-4"), Some("0")), Ok(Paging { page: 1, limit: 1 }));
        assert_eq!(parse(Some("3"), Some("+500")), Ok(Paging { page: 3, limit: 100 }));
        assert_eq!(parse(Some("9007199254740991"), None).unwrap().page, MAX_PAGE);
        assert_eq!(parse(Some("9007199254740992"), None).unwrap_err().max, Some(MAX_PAGE));
        assert_eq!(parse(None, Some("99999999999999999999999999999999999999999")).unwrap().limit, 100);
    }

    #[test]
    fn anything_but_a_whole_number_is_refused_by_name() {
        for bad in ["", "1.5", "two", "1e3", "--1", "0x10", " 3", "3 ", " \t6", "+ 6"] {
            assert_eq!(parse(Some(bad), None).unwrap_err().field, "page", "{bad:?}");
            assert_eq!(parse(None, Some(bad)).unwrap_err().field, "limit", "{bad:?}");
        }
    }

    #[test]
    fn offsets_saturate_instead_of_wrapping() {
        let far = Paging { page: MAX_PAGE, limit: 100 };
        assert_eq!(far.offset(), (MAX_PAGE - 1) * 100);
        assert_eq!(Paging { page: u64::MAX, limit: 100 }.offset(), u64::MAX);
        assert_eq!(far.pages(101), 2);
    }
}
