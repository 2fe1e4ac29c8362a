//! The docs-only rule: every changed path (both sides of a rename) matches the docs globs; a
//! file list GitHub may have truncated, or an empty one, is not docs-only.

use globset::GlobSet;

/// One changed file: its path and, for a rename, its old path.
pub struct ChangedFile {
    pub path: String,
    pub previous: Option<String>,
}

/// GitHub lists at most 3,000 files of a PR.
pub(crate) const FILE_LIST_LIMIT: usize = 3000;

/// Why a PR is not (known to be) docs-only.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NotDocsOnly {
    #[error("docs-only: unknown, GitHub lists at most {FILE_LIST_LIMIT} files")]
    TooManyFiles,
    #[error("docs-only: the PR changes no file")]
    NoFiles,
    #[error("docs-only: {path} is not docs")]
    NotDocs { path: String },
}

pub(crate) fn docs_only(files: &[ChangedFile], globs: &GlobSet) -> Result<(), NotDocsOnly> {
    if files.len() >= FILE_LIST_LIMIT {
        return Err(NotDocsOnly::TooManyFiles);
    }
    if files.is_empty() {
        return Err(NotDocsOnly::NoFiles);
    }
    for file in files {
        for path in std::iter::once(&file.path).chain(file.previous.as_ref()) {
            if !globs.is_match(path) {
                return Err(NotDocsOnly::NotDocs { path: path.clone() });
            }
        }
    }
    Ok(())
}
