//! Fairness between organizations under overload, and optional per-token quotas.
//!
//! - **In flight per organization.** At most `CRM_ORG_MAX_IN_FLIGHT` API
//!   requests of one organization run at once, each until its answer is
//!   written; the next ones wait at most
//!   `CRM_ORG_QUEUE_MS` in a queue no longer than that limit, then get 429
//!   `RATE_LIMITED` with `Retry-After`. One integrator's runaway loop then
//!   queues behind itself instead of in front of every other organization,
//!   and its slow readers of large answers hold its own slots, not the
//!   host's memory without bound.
//! - **Quotas per token** (`CRM_RATE_PER_SECOND`, burst twice that; `0` is
//!   off): a token bucket per token (governor's GCRA); past it 429
//!   `RATE_LIMITED` with `Retry-After`, `RateLimit-Limit`,
//!   `RateLimit-Remaining` and `RateLimit-Reset`. Answers within the quota
//!   carry the same three headers.
//!
//! The public form door's rate limit, per client address: [`form_rate`].

pub mod form_rate;

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use http::{HeaderName, StatusCode};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::http::response::HeldUntilWritten;
use crate::http::{ApiError, Response};

type TokenLimiter = DefaultKeyedRateLimiter<String, StateInformationMiddleware>;

/// One organization's lane: its in-flight slots and how many wait for one.
struct Lane {
    slots: Arc<Semaphore>,
    waiting: AtomicUsize,
}

pub struct Gate {
    per_org: usize,
    queue_wait: Duration,
    lanes: Mutex<HashMap<String, Arc<Lane>>>,
    quotas: Option<(TokenLimiter, u32)>,
}

/// Leave to run: holds the organization's slot until dropped, and the quota
/// headers to add to the answer.
pub struct Pass {
    slot: OwnedSemaphorePermit,
    headers: Vec<(HeaderName, String)>,
}

impl Pass {
    /// The answer, with the quota headers and the slot, which it holds until written.
    pub fn stamp(self, mut response: Response) -> Response {
        for (name, value) in self.headers {
            response = response.with_header(name, &value);
        }
        response.held = Some(HeldUntilWritten::new(self.slot));
        response
    }
}

const LIMIT: HeaderName = HeaderName::from_static("ratelimit-limit");
const REMAINING: HeaderName = HeaderName::from_static("ratelimit-remaining");
const RESET: HeaderName = HeaderName::from_static("ratelimit-reset");

impl Gate {
    /// `rate_per_second == 0` turns quotas off.
    pub fn new(per_org: usize, queue_wait: Duration, rate_per_second: u32) -> Gate {
        let quotas = NonZeroU32::new(rate_per_second).map(|rate| {
            let burst = rate.saturating_mul(NonZeroU32::new(2).expect("2 is not zero"));
            let quota = Quota::per_second(rate).allow_burst(burst);
            (RateLimiter::keyed(quota).with_middleware::<StateInformationMiddleware>(), burst.get())
        });
        Gate { per_org: per_org.max(1), queue_wait, lanes: Mutex::default(), quotas }
    }

    fn lane(&self, org_id: &str) -> Arc<Lane> {
        let mut lanes = self.lanes.lock().expect("lanes lock");
        lanes
            .entry(org_id.to_string())
            .or_insert_with(|| Arc::new(Lane { slots: Arc::new(Semaphore::new(self.per_org)), waiting: 0.into() }))
            .clone()
    }

    /// Lets a request of `org_id` made with `token_id` run, or refuses it
    /// with 429. A request without a token (a public form) has no quota.
    pub async fn enter(&self, org_id: &str, token_id: Option<&str>) -> Result<Pass, ApiError> {
        let headers = match token_id {
            Some(token_id) => self.check_quota(token_id)?,
            None => Vec::new(),
        };
        let lane = self.lane(org_id);
        let slot = match lane.slots.clone().try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) => {
                if lane.waiting.fetch_add(1, Ordering::SeqCst) >= self.per_org {
                    lane.waiting.fetch_sub(1, Ordering::SeqCst);
                    return Err(rate_limited(1));
                }
                let waited = tokio::time::timeout(self.queue_wait, lane.slots.clone().acquire_owned()).await;
                lane.waiting.fetch_sub(1, Ordering::SeqCst);
                match waited {
                    Ok(Ok(slot)) => slot,
                    _ => return Err(rate_limited(1)),
                }
            }
        };
        Ok(Pass { slot, headers })
    }

    /// The token's quota headers, or its 429.
    fn check_quota(&self, token_id: &str) -> Result<Vec<(HeaderName, String)>, ApiError> {
        let Some((limiter, burst)) = &self.quotas else { return Ok(Vec::new()) };
        match limiter.check_key(&token_id.to_string()) {
            Ok(state) => Ok(vec![
                (LIMIT, burst.to_string()),
                (REMAINING, state.remaining_burst_capacity().to_string()),
                (RESET, "1".into()),
            ]),
            Err(not_until) => {
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
                let mut error = rate_limited(seconds.max(1));
                for (name, value) in
                    [(LIMIT, burst.to_string()), (REMAINING, "0".into()), (RESET, seconds.max(1).to_string())]
                {
                    error = error.with_header(name, value);
                }
                Err(error)
            }
        }
    }
}

/// 429 `RATE_LIMITED` with `Retry-After` (in seconds).
pub fn rate_limited(retry_after: u64) -> ApiError {
    ApiError::new(StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED", "Too many requests: retry later")
        .with("retryAfter", retry_after)
        .with_header(http::header::RETRY_AFTER, retry_after.to_string())
}
