//! Reading a pfx-scene format 1 project into a resolved [`Scene`]: toml_edit documents with
//! their spans, checked against the spec's key table, references resolved to keys.

pub mod diagnostic;
pub mod model;

pub use diagnostic::{Diagnostic, Location, Severity};
pub use model::*;
