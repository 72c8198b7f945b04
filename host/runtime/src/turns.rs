//! Compute turns: how the host's CPU is shared between organizations.
//!
//! A request computes (runs its component, a catalog match) only while it
//! holds a turn, and there are few turns: about what the cores can run at
//! once. A request that waits for one parks at no cost. When a turn ends it
//! goes to the next organization, not the next request: the organizations
//! waiting take turns round robin, one request each, and one that starts
//! waiting joins the end of the round. One organization's hundreds of
//! waiting requests queue behind each other, while another's single request
//! waits for one turn of each organization ahead of it, and none starves.
//!
//! A call keeps its turn in a [`Held`] slot, which gives it back:
//! - while the call waits on something outside (a shipping provider, a
//!   customer's DNS): [`Held::off_turn`];
//! - at every epoch tick (10 ms) of a long computation while another request
//!   waits: [`Held::pass_if_wanted`], so a 10,000-row import cannot keep a
//!   turn for seconds while others queue.
//!
//! The turns also keep [`Computing`], the count of requests holding or
//! waiting for one, from which the store paces its combined commits.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crm_store::combine::Computing;
use tokio::sync::oneshot;

/// The turns of one host.
pub struct Turns {
    state: Mutex<State>,
    capacity: usize,
    computing: Computing,
}

#[derive(Default)]
struct State {
    free: usize,
    /// Requests waiting (some may have stopped waiting, until their turn comes).
    queued: usize,
    /// The organizations waiting, in the order they are served.
    round: VecDeque<String>,
    /// Each waiting organization's requests, first come first served.
    waiting: HashMap<String, VecDeque<oneshot::Sender<Turn>>>,
}

/// The right to compute, until dropped.
pub struct Turn {
    /// `None` once given back without passing it on (see [`Turns::pass_on`]).
    turns: Option<Arc<Turns>>,
}

impl Turns {
    /// `capacity` turns at once (at least one); keeps `computing`.
    pub fn new(capacity: usize, computing: Computing) -> Arc<Turns> {
        let capacity = capacity.max(1);
        Arc::new(Turns { state: Mutex::new(State { free: capacity, ..State::default() }), capacity, computing })
    }

    /// Publishes the count of requests holding or waiting for a turn.
    fn count(&self, state: &State) {
        self.computing.set(self.capacity - state.free + state.queued);
    }

    /// A turn for a request of `org`, as soon as it is that organization's turn.
    pub async fn take(self: &Arc<Self>, org: &str) -> Turn {
        let asked = Instant::now();
        let turn = self.wait_for_turn(org).await;
        metrics::histogram!("crm_compute_turn_wait_seconds").record(asked.elapsed().as_secs_f64());
        turn
    }

    async fn wait_for_turn(self: &Arc<Self>, org: &str) -> Turn {
        let waiting = {
            let mut state = self.state.lock().expect("turns lock");
            if state.free > 0 {
                state.free -= 1;
                self.count(&state);
                return Turn { turns: Some(self.clone()) };
            }
            let (tx, rx) = oneshot::channel();
            let queue = state.waiting.entry(org.to_string()).or_default();
            queue.push_back(tx);
            if queue.len() == 1 {
                state.round.push_back(org.to_string());
            }
            state.queued += 1;
            self.count(&state);
            rx
        };
        // Senders are only ever consumed by `send`, so this never closes empty.
        waiting.await.expect("a waiting request's turn is sent, never dropped")
    }

    /// Whether a request waits for a turn.
    fn wanted(&self) -> bool {
        !self.state.lock().expect("turns lock").waiting.is_empty()
    }

    #[cfg(test)]
    fn free(&self) -> usize {
        self.state.lock().expect("turns lock").free
    }

    /// Passes an ended turn to the next organization waiting, or frees it.
    fn pass_on(self: &Arc<Self>) {
        let mut state = self.state.lock().expect("turns lock");
        loop {
            let Some(org) = state.round.pop_front() else {
                state.free += 1;
                self.count(&state);
                return;
            };
            let queue = state.waiting.get_mut(&org).expect("a listed organization waits");
            let next = queue.pop_front().expect("a listed organization has a waiter");
            if queue.is_empty() {
                state.waiting.remove(&org);
            } else {
                state.round.push_back(org);
            }
            state.queued -= 1;
            self.count(&state);
            match next.send(Turn { turns: Some(self.clone()) }) {
                Ok(()) => return,
                // That request stopped waiting (its client left): the turn
                // comes back, is emptied so that dropping it does not pass it
                // on a second time (under this lock), and goes to the next.
                Err(mut turn) => drop(turn.turns.take()),
            }
        }
    }
}

/// The turn of one call, if it holds one now (a call the host makes for
/// itself holds none), shared with the futures that give it back and retake it.
#[derive(Clone, Default)]
pub struct Held(Arc<Mutex<Option<(Turn, String)>>>);

impl Held {
    /// `turn`, for a request of `org`.
    pub fn new(turn: Turn, org: &str) -> Held {
        Held(Arc::new(Mutex::new(Some((turn, org.to_string())))))
    }

    fn give_back(&self) -> Option<(Turn, String)> {
        self.0.lock().expect("held turn lock").take()
    }

    /// Takes the next turn of `org` and holds it.
    async fn retake(&self, turns: Arc<Turns>, org: String) {
        let turn = turns.take(&org).await;
        *self.0.lock().expect("held turn lock") = Some((turn, org));
    }

    /// Awaits `outside` without the turn, then waits for a new one.
    pub async fn off_turn<T>(&self, outside: impl Future<Output = T>) -> T {
        let Some((turn, org)) = self.give_back() else { return outside.await };
        let turns = turn.turns.clone().expect("a held turn is full");
        drop(turn);
        let answer = outside.await;
        self.retake(turns, org).await;
        answer
    }

    /// When another request waits: a future that gives the turn back and
    /// waits for the next one (the call then goes on where it stopped).
    pub fn pass_if_wanted(&self) -> Option<Pin<Box<dyn Future<Output = ()> + Send>>> {
        let mut slot = self.0.lock().expect("held turn lock");
        let turns = slot.as_ref()?.0.turns.clone().expect("a held turn is full");
        if !turns.wanted() {
            return None;
        }
        let (turn, org) = slot.take().expect("checked");
        drop(slot);
        let held = self.clone();
        Some(Box::pin(async move {
            drop(turn);
            held.retake(turns, org).await;
        }))
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        if let Some(turns) = self.turns.take() {
            turns.pass_on();
        }
    }
}

#[cfg(test)]
mod tests {
    //! On the current-thread runtime of `#[tokio::test]`: a spawned task runs
    //! (and starts waiting) when the test yields, so the order is exact.
    use super::*;
    use tokio::task::{JoinHandle, yield_now};

    type Order = Arc<Mutex<Vec<&'static str>>>;

    /// A request of `org` that waits for its turn, notes it, and ends it.
    async fn queue(turns: &Arc<Turns>, org: &'static str, order: &Order) -> JoinHandle<()> {
        let (turns, order) = (turns.clone(), order.clone());
        let request = tokio::spawn(async move {
            let _turn = turns.take(org).await;
            order.lock().unwrap().push(org);
        });
        yield_now().await;
        request
    }

    /// With one turn held by `holder`, requests of `orgs` queue in that
    /// order; the turn is released: the order they were served in, and
    /// whether the turn came back free.
    async fn served_after(holder: &'static str, orgs: &[&'static str]) -> (Vec<&'static str>, usize) {
        let turns = Turns::new(1, Computing::default());
        let held = turns.take(holder).await;
        let order = Order::default();
        let mut requests = Vec::new();
        for org in orgs {
            requests.push(queue(&turns, org, &order).await);
        }
        drop(held);
        for request in requests {
            request.await.unwrap();
        }
        let served = order.lock().unwrap().clone();
        (served, turns.free())
    }

    #[tokio::test]
    async fn a_quiet_organization_waits_one_turn_not_a_busy_ones_queue() {
        let (served, free) = served_after("busy", &["busy", "busy", "busy", "quiet"]).await;
        assert_eq!(served, ["busy", "quiet", "busy", "busy"]);
        assert_eq!(free, 1);
    }

    #[tokio::test]
    async fn busy_organizations_alternate() {
        let (served, free) = served_after("a", &["a", "a", "a", "b", "b", "b"]).await;
        assert_eq!(served, ["a", "b", "a", "b", "a", "b"]);
        assert_eq!(free, 1);
    }

    #[tokio::test]
    async fn every_waiting_organization_gets_a_turn_before_any_gets_a_second() {
        let (served, free) = served_after("x", &["busy", "busy", "busy", "l1", "l2", "l3"]).await;
        assert_eq!(served, ["busy", "l1", "l2", "l3", "busy", "busy"]);
        assert_eq!(free, 1);
    }

    #[tokio::test]
    async fn a_request_that_stops_waiting_does_not_keep_a_turn() {
        let turns = Turns::new(1, Computing::default());
        let held = turns.take("a").await;
        let order = Order::default();
        let gave_up = queue(&turns, "b", &order).await;
        gave_up.abort();
        let _ = gave_up.await;
        drop(held);
        assert_eq!(turns.free(), 1);
        let _again = turns.take("b").await;
        assert_eq!(turns.free(), 0);
        assert!(order.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn computing_counts_the_requests_holding_or_waiting_for_a_turn() {
        let computing = Computing::default();
        let turns = Turns::new(2, computing.clone());
        let first = turns.take("a").await;
        let second = turns.take("b").await;
        assert_eq!(computing.get(), 2);
        let order = Order::default();
        let waiting = [queue(&turns, "a", &order).await, queue(&turns, "c", &order).await];
        assert_eq!(computing.get(), 4, "two hold a turn, two wait");
        drop(first);
        drop(second);
        for request in waiting {
            request.await.unwrap();
        }
        assert_eq!(computing.get(), 0);
        assert_eq!(turns.free(), 2);
    }

    #[tokio::test]
    async fn a_held_turn_is_passed_on_at_a_tick_only_when_another_request_waits() {
        let turns = Turns::new(1, Computing::default());
        let held = Held::new(turns.take("long").await, "long");
        assert!(held.pass_if_wanted().is_none(), "nobody waits: keep computing");
        let order = Order::default();
        let short = queue(&turns, "short", &order).await;
        let pass = held.pass_if_wanted().expect("a request waits");
        pass.await;
        short.await.unwrap();
        assert_eq!(*order.lock().unwrap(), ["short"]);
        assert_eq!(turns.free(), 0, "the long call holds its turn again");
        drop(held);
        assert_eq!(turns.free(), 1);
    }
}
