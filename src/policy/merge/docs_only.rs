//! The docs-only rule: every changed path (both sides of a rename) matches the docs globs; a
//! file list GitHub may have truncated, or an empty one, is not docs-only.

use globset::GlobSet;

/// One changed file: its path and, for a rename, its old path.
pub struct ChangedFile {
    pub path: String,
    pub previous: Option<String>,
}

/// GitHub lists at most 3,000 files of a PR.
pub const FILE_LIST_LIMIT: usize = 3000;

pub fn docs_only(files: &[ChangedFile], globs: &GlobSet) -> Result<(), String> {
    if files.len() >= FILE_LIST_LIMIT {
        return Err(format!(
            "docs-only: unknown, GitHub lists at most {FILE_LIST_LIMIT} files"
        ));
    }
    if files.is_empty() {
        return Err("docs-only: the PR changes no file".into());
    }
    for file in files {
        for path in std::iter::once(&file.path).chain(file.previous.as_ref()) {
            if !globs.is_match(path) {
                return Err(format!("docs-only: {path} is not docs"));
            }
        }
    }
    Ok(())
}
