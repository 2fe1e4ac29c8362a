//! Which GitHub a run talks to and with what token: the API base (flag, `GITHUB_API_URL`,
//! `GH_HOST`), the kind of host it is, its web URL, and the token for it, as gh chooses one
//! (variables, then `gh auth token --hostname`). A token is never printed, only its source.

use secrecy::SecretString;

use super::env::Env;
use super::error::SettingsError;

/// The API base URL, from the flag, `GITHUB_API_URL`, `GH_HOST`, or github.com.
pub(crate) fn api_base(flag: Option<&str>, env: &Env) -> Result<String, SettingsError> {
    let (base, source) = if let Some(flag) = flag {
        (flag.to_string(), "--api-url")
    } else if let Some(url) = env.get("GITHUB_API_URL") {
        (url.to_string(), "GITHUB_API_URL")
    } else if let Some(host) = env.get("GH_HOST") {
        (api_base_for_host(host), "GH_HOST")
    } else {
        return Ok("https://api.github.com".to_string());
    };
    let invalid = |fix: &str| SettingsError::value(source, &base, fix);
    let url = url::Url::parse(&base).map_err(|error| {
        invalid(&format!(
            "{error}; write a URL such as https://ghe.example.com/api/v3"
        ))
    })?;
    match (url.scheme(), url.host_str()) {
        ("https", Some(_)) => {}
        ("http", Some(host)) if is_loopback(host) => {}
        ("http", Some(_)) => {
            return Err(invalid(
                "plain http:// is allowed only for loopback hosts; use https://",
            ))
        }
        _ => return Err(invalid("use an https:// URL")),
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(invalid("a base URL has no query or fragment"));
    }
    Ok(base.trim_end_matches('/').to_string())
}

/// The API base of a web host, as gh maps them: `github.com` → `https://api.github.com`,
/// `SUB.ghe.com` → `https://api.SUB.ghe.com`, any other host → `https://HOST/api/v3`.
pub(crate) fn api_base_for_host(host: &str) -> String {
    let host = host.trim().trim_end_matches('/').to_ascii_lowercase();
    if host == "github.com" {
        "https://api.github.com".to_string()
    } else if is_tenancy(&host) {
        format!("https://api.{host}")
    } else {
        format!("https://{host}/api/v3")
    }
}

/// A subdomain of ghe.com (GitHub Enterprise Cloud with data residency).
fn is_tenancy(host: &str) -> bool {
    host.strip_suffix(".ghe.com")
        .is_some_and(|sub| !sub.is_empty() && !sub.contains('.'))
}

/// Which kind of GitHub an API base is, for choosing a token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Host {
    /// github.com, or a subdomain of ghe.com: `GH_TOKEN` / `GITHUB_TOKEN`.
    Cloud { web_host: String },
    /// GitHub Enterprise Server: `GH_ENTERPRISE_TOKEN` / `GITHUB_ENTERPRISE_TOKEN`.
    Server { web_host: String },
}

impl Host {
    /// The web host, as `gh auth token --hostname` names it.
    pub(crate) fn web_host(&self) -> &str {
        match self {
            Host::Cloud { web_host } | Host::Server { web_host } => web_host,
        }
    }

    fn token_variables(&self) -> [&'static str; 2] {
        match self {
            Host::Cloud { .. } => ["GH_TOKEN", "GITHUB_TOKEN"],
            Host::Server { .. } => ["GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"],
        }
    }
}

/// The host an API base belongs to: `api.github.com` is github.com, `api.SUB.ghe.com` is
/// SUB.ghe.com, `HOST/api/v3` (or any other host) is an Enterprise Server. A loopback base
/// without `/api/v3` is a local stand-in for github.com (a test server or a local proxy).
pub(crate) fn host_of(api_base: &str) -> Host {
    let url = url::Url::parse(api_base).ok();
    let host = url
        .as_ref()
        .and_then(|url| url.host_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let enterprise_path = url
        .as_ref()
        .is_some_and(|url| url.path().trim_end_matches('/').ends_with("/api/v3"));
    if host == "api.github.com" || (is_loopback(&host) && !enterprise_path) {
        return Host::Cloud {
            web_host: "github.com".to_string(),
        };
    }
    if let Some(tenant) = host.strip_prefix("api.").filter(|rest| is_tenancy(rest)) {
        return Host::Cloud {
            web_host: tenant.to_string(),
        };
    }
    Host::Server { web_host: host }
}

/// Where a human opens what the API serves: `https://github.com` for `api.github.com`,
/// `https://SUB.ghe.com` for `api.SUB.ghe.com`, the host itself for an Enterprise
/// `https://HOST/api/v3`.
pub fn web_url(api_base: &str) -> String {
    if api_base == "https://api.github.com" {
        return "https://github.com".to_string();
    }
    if let Some(tenant) = api_base
        .strip_prefix("https://api.")
        .filter(|rest| is_tenancy(rest))
    {
        return format!("https://{tenant}");
    }
    api_base
        .strip_suffix("/api/v3")
        .unwrap_or(api_base)
        .to_string()
}

fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// A token and where it came from (never what it is).
pub struct Token {
    pub secret: SecretString,
    pub source: String,
}

/// The token for the API base's host, as gh chooses it (`gh help environment`): `GH_TOKEN`,
/// `GITHUB_TOKEN` only for github.com and `*.ghe.com`; `GH_ENTERPRISE_TOKEN`,
/// `GITHUB_ENTERPRISE_TOKEN` only for an Enterprise Server; else `gh auth token --hostname`
/// of the web host. A token meant for one host is never sent to another.
pub(crate) fn token(env: &Env, base: &str) -> Result<Token, SettingsError> {
    let host = host_of(base);
    let names = host.token_variables();
    for name in &names {
        if let Some(value) = env.get(name) {
            let value = value.trim();
            // Never echo the value: name the variable and what is wrong with it.
            if !value.chars().all(|c| c.is_ascii_graphic()) {
                return Err(SettingsError::Token(format!(
                    "{name} holds characters a GitHub token never has (a space, a line break or a non-ASCII letter): set it to the token alone"
                )));
            }
            return Ok(Token {
                secret: SecretString::from(value.to_string()),
                source: name.to_string(),
            });
        }
    }
    let gh = env.get("PATH").and_then(|path| {
        std::env::split_paths(path)
            .map(|dir| dir.join("gh"))
            .find(|candidate| candidate.is_file())
    });
    if let Some(gh) = gh {
        let mut command = std::process::Command::new(&gh);
        command.args(gh_auth_token_args(&host));
        if let Ok(output) = command.stderr(std::process::Stdio::null()).output() {
            let value = String::from_utf8_lossy(&output.stdout).trim().to_string();
            if output.status.success() && !value.is_empty() {
                return Ok(Token {
                    secret: SecretString::from(value),
                    source: "`gh auth token`".to_string(),
                });
            }
        }
    }
    let looked = names.join(", ");
    let web_host = host.web_host();
    Err(SettingsError::Token(format!(
        "no GitHub token for {web_host}: looked in {looked} and `gh auth token --hostname {web_host}`; set {} or run `gh auth login --hostname {web_host}`",
        names[0]
    )))
}

/// `gh auth token` for the web host's own token: always by name, so gh never answers with
/// the token of whatever host it was logged in to last.
fn gh_auth_token_args(host: &Host) -> [&str; 4] {
    ["auth", "token", "--hostname", host.web_host()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_base_rules() {
        let env = Env::from_pairs(&[("GH_HOST", "ghe.example.com")]);
        assert_eq!(
            api_base(None, &env).unwrap(),
            "https://ghe.example.com/api/v3"
        );
        assert_eq!(
            api_base(None, &Env::default()).unwrap(),
            "https://api.github.com"
        );
        assert!(api_base(Some("http://127.0.0.1:8080"), &env).is_ok());
        assert!(api_base(Some("http://[::1]:8080/"), &env).is_ok());
        let error = api_base(Some("http://ghe.example.com"), &env)
            .unwrap_err()
            .to_string();
        assert!(error.contains("loopback"), "{error}");
        let env = Env::from_pairs(&[("GITHUB_API_URL", "ftp://x")]);
        assert!(api_base(None, &env)
            .unwrap_err()
            .to_string()
            .contains("GITHUB_API_URL"));
    }

    #[test]
    fn hosts_map_as_gh_maps_them() {
        assert_eq!(api_base_for_host("github.com"), "https://api.github.com");
        assert_eq!(
            api_base_for_host("octo.ghe.com"),
            "https://api.octo.ghe.com"
        );
        assert_eq!(
            api_base_for_host("ghe.example.com"),
            "https://ghe.example.com/api/v3"
        );
        let env = Env::from_pairs(&[("GH_HOST", "octo.ghe.com")]);
        assert_eq!(api_base(None, &env).unwrap(), "https://api.octo.ghe.com");
        assert_eq!(
            host_of("https://api.github.com"),
            Host::Cloud {
                web_host: "github.com".into()
            }
        );
        assert_eq!(
            host_of("https://api.octo.ghe.com"),
            Host::Cloud {
                web_host: "octo.ghe.com".into()
            }
        );
        assert_eq!(
            host_of("https://ghe.example.com/api/v3"),
            Host::Server {
                web_host: "ghe.example.com".into()
            }
        );
        // Only a subdomain of ghe.com is ghe.com.
        assert!(matches!(
            host_of("https://api.evilghe.com"),
            Host::Server { .. }
        ));
        assert!(matches!(
            host_of("https://api.a.b.ghe.com"),
            Host::Server { .. }
        ));
        assert_eq!(web_url("https://api.octo.ghe.com"), "https://octo.ghe.com");
        assert_eq!(
            gh_auth_token_args(&host_of("https://api.github.com")),
            ["auth", "token", "--hostname", "github.com"]
        );
        assert_eq!(
            gh_auth_token_args(&host_of("https://api.octo.ghe.com")),
            ["auth", "token", "--hostname", "octo.ghe.com"]
        );
    }

    #[test]
    fn a_token_is_only_for_its_kind_of_host() {
        let env = Env::from_pairs(&[
            ("GH_TOKEN", "cloud"),
            ("GH_ENTERPRISE_TOKEN", "server"),
            ("PATH", "/nonexistent"),
        ]);
        assert_eq!(
            token(&env, "https://ghe.example.com/api/v3")
                .unwrap()
                .source,
            "GH_ENTERPRISE_TOKEN"
        );
        assert_eq!(
            token(&env, "https://api.octo.ghe.com").unwrap().source,
            "GH_TOKEN"
        );
        let cloud_only = Env::from_pairs(&[("GITHUB_TOKEN", "cloud"), ("PATH", "/nonexistent")]);
        let error = token(&cloud_only, "https://ghe.example.com/api/v3")
            .err()
            .unwrap()
            .to_string();
        assert!(
            error.contains("GH_ENTERPRISE_TOKEN, GITHUB_ENTERPRISE_TOKEN"),
            "{error}"
        );
        let server_only = Env::from_pairs(&[
            ("GITHUB_ENTERPRISE_TOKEN", "server"),
            ("PATH", "/nonexistent"),
        ]);
        assert!(token(&server_only, "https://api.octo.ghe.com").is_err());
    }

    #[test]
    fn token_order_and_absence() {
        let env = Env::from_pairs(&[("GH_TOKEN", "a"), ("GITHUB_TOKEN", "b")]);
        assert_eq!(
            token(&env, "https://api.github.com").unwrap().source,
            "GH_TOKEN"
        );
        let env = Env::from_pairs(&[("GITHUB_TOKEN", "b")]);
        assert_eq!(
            token(&env, "https://api.github.com").unwrap().source,
            "GITHUB_TOKEN"
        );
        let env = Env::from_pairs(&[("GH_ENTERPRISE_TOKEN", "c")]);
        assert!(token(&env, "https://api.github.com").is_err());
        assert_eq!(
            token(&env, "https://ghe.example.com/api/v3")
                .unwrap()
                .source,
            "GH_ENTERPRISE_TOKEN"
        );
        let error = token(
            &Env::from_pairs(&[("PATH", "/nonexistent")]),
            "https://api.github.com",
        )
        .err()
        .unwrap()
        .to_string();
        assert!(
            error.contains("GH_TOKEN, GITHUB_TOKEN") && error.contains("gh auth token"),
            "{error}"
        );
    }
}
