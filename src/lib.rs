//! gh-sweep as a library: what the binary (`main.rs`) wires together, and what the fuzz targets
//! in `fuzz/` exercise directly. The command line is the product; this API is not stable.

#![warn(unreachable_pub)]

pub mod cli;
pub mod clock;
pub mod commands;
pub(crate) mod engine;
pub mod exit;
pub(crate) mod github;
pub(crate) mod http_cache;
pub mod item;
pub mod policy;
pub(crate) mod private_file;
pub mod report;
pub mod settings;
pub mod signals;
pub mod store;
pub mod ui;
