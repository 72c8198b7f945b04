//! The DIVIPOLA catalog of Colombia: 1,122 municipalities and 33 states, embedded
//! in the binary at build time (`data/*.csv`), with the text rules every module
//! shares.
//!
//! Layout, one concept per file:
//! - [`data`]: the records and the loaded [`Catalog`] (built once, on first use);
//! - [`mod@fold`]: how text is compared (case, accents, punctuation);
//! - [`search`]: the `q` / `state` / `limit` search behind `GET /catalogs/municipalities`;
//! - [`resolve`]: city resolution (`resolved` / `ambiguous` / `fuzzy` / `none` /
//!   `invalid_code`), the one place where a city typed by a person becomes a code.
//!
//! The crate is pure: no I/O, no clock, no HTTP, no store. See `README.md` for
//! the data's provenance and the normalisation rules.

mod bag;
pub mod data;
pub mod fold;
pub mod resolve;
pub mod search;

pub use data::{Catalog, Municipality, State, catalog};
pub use fold::fold;
pub use resolve::{CityInput, MAX_CITY_CHARS, Resolution, Status, is_colombia};
pub use search::SearchError;
