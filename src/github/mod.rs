//! Talking to GitHub: the client (every request goes through it), the reader and writer ports
//! the engine holds, their REST implementation, snapshots, and the JSON model.

pub(crate) mod client;
pub(crate) mod graphql;
pub(crate) mod model;
mod parse_error;
pub(crate) mod reader;
pub(crate) mod rest;
pub(crate) mod snapshot;

#[cfg(test)]
pub(crate) use client::Refusal;
pub(crate) use client::{ApiError, WriteError};
pub(crate) use reader::{Reader, Writer};
pub(crate) use rest::{refused_as_locked, SEARCH_CAP, SEARCH_REPOSITORY_CAP};
