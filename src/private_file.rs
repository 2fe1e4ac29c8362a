//! Files readable by their owner only: the database, and a saved snapshot. Below both the
//! store and the GitHub client, so neither imports the other for it.

use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::Path;

/// Writes a file readable by its owner only.
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(bytes)
}

/// Creates an empty file readable by its owner only, unless it exists: never truncates, so two
/// runs starting at once cannot wipe the database the other just created.
pub(crate) fn create_private(path: &Path) -> std::io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(error) => Err(error),
    }
}
