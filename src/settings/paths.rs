//! Where gh-sweep reads and writes on disk, and which repository a clone stands for: the
//! state database's default place, the check that an output file has a folder to go in, and the
//! repository a clone's git remotes give, as gh picks it.

use std::path::{Path, PathBuf};

use super::env::Env;
use super::error::SettingsError;
use crate::item::RepoRef;
use crate::policy::recap::shell_quote;

/// A file gh-sweep will write (the database, a snapshot, the job summary) must have a folder to
/// go in, checked before anything is read: a typo in a path is not found after the writes were
/// sent, and no folder is made up for it. `name` is where the path came from.
pub(super) fn check_output_folder(path: &Path, name: &str) -> Result<(), SettingsError> {
    output_folder_problem(path, name).map_err(SettingsError::Place)
}

fn output_folder_problem(path: &Path, name: &str) -> Result<(), String> {
    if path.is_dir() {
        return Err(format!(
            "invalid {name} {}: it is a folder; name a file in it",
            path.display()
        ));
    }
    let Some(folder) = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
    else {
        return Ok(());
    };
    if folder.is_dir() {
        return Ok(());
    }
    if folder.exists() {
        return Err(format!(
            "invalid {name} {}: {} is not a folder",
            path.display(),
            folder.display()
        ));
    }
    Err(format!(
        "invalid {name} {}: the folder {} does not exist; create it (mkdir -p {}) or name a file in a folder that does",
        path.display(),
        folder.display(),
        shell_quote(&folder.display().to_string())
    ))
}

pub fn default_db(env: &Env) -> Result<PathBuf, SettingsError> {
    let state_home = env
        .get("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| {
            env.get("HOME")
                .map(|home| Path::new(home).join(".local/state"))
        })
        .ok_or_else(|| {
            SettingsError::Place(
                "no place for the state database: set HOME or XDG_STATE_HOME, or pass --db PATH"
                    .to_string(),
            )
        })?;
    Ok(state_home.join("gh-sweep/state.db"))
}

/// The repository a clone's git remotes give, as gh picks it, and the remote that gave it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct CloneDefault {
    pub repo: RepoRef,
    pub remote: String,
}

/// The remotes' URLs and gh marks of the clone in `cwd`, as
/// `git config --get-regexp` prints them (`remote.origin.url https://...`). `None` when git is
/// not there or `cwd` is not in a clone with remotes: then there is no default.
pub(super) fn git_remote_config(cwd: &Path, env: &Env) -> Option<String> {
    let mut command = std::process::Command::new("git");
    command
        .args(["config", "--get-regexp", r"^remote\..*\.(url|gh-resolved)$"])
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if let Some(path) = env.get("PATH") {
        command.env("PATH", path);
    }
    let output = command.output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

/// A remote of the clone: its name, the repository its URL names on the API's host, and its
/// `gh-resolved` mark.
type Remote = (String, Option<RepoRef>, Option<String>);

/// Picks the repository gh would use from a clone's remotes (pure). gh's rule (cli/cli
/// context/remote.go, `BaseRepo`): a remote marked by `gh repo set-default`
/// (`remote.NAME.gh-resolved`: `base` for the remote's own repository, or `OWNER/REPO`) wins;
/// else, where gh would ask, we take the only repository the remotes on the API's host name,
/// and refuse when there are several (a fork clone's `origin` and `upstream`), naming them.
/// Remotes on other hosts are not this run's.
pub(crate) fn clone_default(
    git_config: &str,
    web_host: &str,
) -> Result<Option<CloneDefault>, SettingsError> {
    let remotes = remotes(git_config, web_host);
    let on_host: Vec<(&String, &RepoRef, &Option<String>)> = remotes
        .iter()
        .filter_map(|(name, repo, mark)| repo.as_ref().map(|repo| (name, repo, mark)))
        .collect();
    let marked = marked(&on_host)?;
    let candidates = if marked.is_empty() {
        let mut found: Vec<CloneDefault> = Vec::new();
        for (name, repo, _) in &on_host {
            if !found.iter().any(|known| &known.repo == *repo) {
                found.push(CloneDefault {
                    repo: (*repo).clone(),
                    remote: (*name).clone(),
                });
            }
        }
        found
    } else {
        marked
    };
    match candidates.len() {
        0 => Ok(None),
        1 => Ok(candidates.into_iter().next()),
        _ => {
            let named: Vec<String> = on_host
                .iter()
                .map(|(name, repo, _)| format!("{name} ({repo})"))
                .collect();
            Err(SettingsError::Pool(format!(
                "no repository given, and this clone's remotes on {web_host} name several: {}; pass --repo OWNER/NAME, or run `gh repo set-default` to mark the one gh and gh-sweep use",
                named.join(", ")
            )))
        }
    }
}

/// The remotes `git config --get-regexp` printed, in order, each with its repository when its
/// URL is on `web_host`.
fn remotes(git_config: &str, web_host: &str) -> Vec<Remote> {
    let mut remotes: Vec<Remote> = Vec::new();
    for line in git_config.lines() {
        let Some((key, value)) = line.split_once(' ') else {
            continue;
        };
        let Some((name, field)) = key
            .strip_prefix("remote.")
            .and_then(|rest| rest.rsplit_once('.'))
        else {
            continue;
        };
        let index = match remotes.iter().position(|(known, _, _)| known == name) {
            Some(index) => index,
            None => {
                remotes.push((name.to_string(), None, None));
                remotes.len() - 1
            }
        };
        match field {
            "url" => {
                if let Some((host, repo)) = crate::item::repo_of_url(value) {
                    if host == web_host && remotes[index].1.is_none() {
                        remotes[index].1 = Some(repo);
                    }
                }
            }
            "gh-resolved" => remotes[index].2 = Some(value.trim().to_string()),
            _ => {}
        }
    }
    remotes
}

/// The repositories `gh repo set-default` marked, each once.
fn marked(
    on_host: &[(&String, &RepoRef, &Option<String>)],
) -> Result<Vec<CloneDefault>, SettingsError> {
    let mut marked: Vec<CloneDefault> = Vec::new();
    for (name, repo, mark) in on_host {
        let Some(mark) = mark else { continue };
        let repo = if mark == "base" {
            (*repo).clone()
        } else {
            mark.parse::<RepoRef>().map_err(|error| {
                SettingsError::Pool(format!("remote `{name}`'s gh-resolved `{mark}`: {error}; run `gh repo set-default` again"))
            })?
        };
        if !marked.iter().any(|found| found.repo == repo) {
            marked.push(CloneDefault {
                repo,
                remote: (*name).clone(),
            });
        }
    }
    Ok(marked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_default_is_the_repository_gh_would_use() {
        let pick = |config: &str| clone_default(config, "github.com");
        let repo = |text: &str| text.parse::<RepoRef>().unwrap();
        assert_eq!(pick(""), Ok(None));
        // Remotes on other hosts are not this run's.
        let other_host = "remote.origin.url https://gitlab.example.com/a/b.git\nremote.gh.url git@github.com:octo/demo.git\n";
        assert_eq!(
            pick(other_host),
            Ok(Some(CloneDefault {
                repo: repo("octo/demo"),
                remote: "gh".into()
            }))
        );
        assert_eq!(
            clone_default(other_host, "ghe.example.com"),
            Ok(None),
            "no remote on the API's host"
        );
        // `gh repo set-default` wrote `base`, or an OWNER/REPO of its own.
        let fork = "remote.origin.url https://github.com/me/demo.git\nremote.up.stream.url https://github.com/octo/demo.git\n";
        let error = pick(fork).unwrap_err().to_string();
        assert!(
            error.contains("origin (me/demo), up.stream (octo/demo)"),
            "{error}"
        );
        let marked = format!("{fork}remote.up.stream.gh-resolved base\n");
        assert_eq!(pick(&marked).unwrap().unwrap().repo, repo("octo/demo"));
        let named = format!("{fork}remote.origin.gh-resolved octo/demo\n");
        assert_eq!(pick(&named).unwrap().unwrap().repo, repo("octo/demo"));
        // Two remotes of one repository are one repository.
        let twice = "remote.a.url https://github.com/octo/demo\nremote.b.url git@github.com:octo/demo.git\n";
        assert_eq!(pick(twice).unwrap().unwrap().repo, repo("octo/demo"));
    }
}
