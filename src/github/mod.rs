//! Talking to GitHub: the client (every request goes through it), the reader and writer ports
//! the engine holds, their REST implementation, snapshots, and the JSON model.

pub mod client;
pub mod graphql;
pub mod model;
mod parse_error;
pub mod reader;
pub mod rest;
pub mod snapshot;

pub use client::{ApiError, Client, Refusal, WriteError, WriteReceipt};
pub use reader::{Reader, Writer};
pub use rest::{refused_as_locked, SEARCH_CAP, SEARCH_REPOSITORY_CAP};
