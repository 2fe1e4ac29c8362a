//! The GraphQL implementation of the reader port: one query per page of items carrying every
//! nested fact the policies take, and follow-up queries only for a connection longer than its
//! first page. The documents it sends are in `queries`, checked against GitHub's schema.

mod batch;
mod changes;
mod files;
mod parse;
pub(crate) mod queries;
mod reader;
mod search;
mod stale;
mod stale_entry;
mod stale_page;
pub(crate) mod stale_parse;
mod transport;

pub(crate) use reader::GraphqlReader;
