//! Reading a pfx-scene format 1 project into a resolved [`Scene`]: toml_edit documents with
//! their spans, checked against the spec's key table, references resolved to keys.

pub(crate) mod check;
pub mod diagnostic;
mod load;
pub mod migrate;
pub mod model;
pub mod project;
pub mod schema;
mod toml;

pub use diagnostic::{Code, Diagnostic, Location, Severity};
pub use load::{load, root_of};
pub use model::*;
