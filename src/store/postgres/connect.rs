//! How a `postgres://` URL becomes a connection: its `sslmode` mapped onto what rust-postgres
//! knows (it parses only disable/prefer/require) and a rustls configuration that verifies the
//! server, a private CA from `sslrootcert` or `PGSSLROOTCERT`, no plaintext fallback for a host
//! off this machine, and the password from the URL, `PGPASSWORD` or a passfile (`PGPASSFILE`,
//! `~/.pgpass`, which the driver does not read). The password is held as a secret and never
//! rendered: [`Target::shown`] is the URL without it, for output, errors and the rerun line.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use postgres::config::{Host, SslMode};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};
use secrecy::{ExposeSecret, SecretString};

use super::Target;
use crate::exit::Fatal;
use crate::store::location::{conninfo_pairs, conninfo_text, is_url};

/// What TLS a connection gets: libpq's table ("SSL Support", SSL Mode Descriptions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tls {
    /// Plaintext: `sslmode=disable`.
    Off,
    /// `allow` and `prefer` (libpq's default): TLS when the server offers it, its certificate
    /// not checked (libpq checks none for these modes), plaintext when it offers none. libpq's
    /// `allow` tries plaintext first; the driver always asks for TLS first, so `allow` is
    /// `prefer` here, which only ever gives more protection.
    Prefer,
    /// TLS or no connection, its chain verified (against `root_cert`, else the public roots);
    /// the host name too when `names` is set. `require` is this with `names: false` when a
    /// root certificate file exists (libpq: "if a root CA file exists, the behavior of
    /// sslmode=require will be the same as that of verify-ca"), else [`Tls::Encrypted`].
    Verified {
        root_cert: Option<PathBuf>,
        names: bool,
    },
    /// `require` without a root certificate file: TLS or no connection, the certificate not
    /// checked, as libpq.
    Encrypted,
}

/// What a URL asks of a connection: the driver's config (password and TLS mode set) and the
/// TLS to give it.
pub struct ConnectPlan {
    pub config: postgres::Config,
    pub tls: Tls,
    /// A passfile that held a password for this connection and was ignored because others
    /// can read it (as libpq ignores it): its path and mode, for the message if the server
    /// then refuses.
    pub ignored_passfile: Option<(PathBuf, u32)>,
}

fn unusable(target: &Target, why: impl std::fmt::Display) -> anyhow::Error {
    Fatal::Usage(format!("cannot use the database {}: {why}", target.shown)).into()
}

/// Reads the URL: the parameters the driver does not know taken out and mapped, the password
/// found where libpq would look.
pub fn plan(target: &Target) -> anyhow::Result<ConnectPlan> {
    let (rebuilt, sslmode, root_cert) = take_tls_parameters(target)?;
    // The driver's own message may quote the URL: say what is wrong without it.
    let mut config: postgres::Config = rebuilt.parse().map_err(|_| {
        unusable(
            target,
            "it is not a connection string PostgreSQL accepts (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=verify-full], or host=HOST user=USER dbname=DATABASE)",
        )
    })?;
    if config.get_user().is_none() {
        return Err(unusable(
            target,
            "the URL names no user: write postgres://USER@HOST/DATABASE",
        ));
    }
    // Where libpq looks for a root certificate: `sslrootcert`, `PGSSLROOTCERT`, then
    // `~/.postgresql/root.crt` when it exists.
    let root_cert = root_cert
        .or_else(|| target.root_cert_env.clone())
        .or_else(|| target.root_cert_home.clone().filter(|path| path.exists()));
    let tls = tls_of(target, sslmode.as_deref(), root_cert)?;
    config.ssl_mode(match tls {
        Tls::Off => SslMode::Disable,
        Tls::Prefer => SslMode::Prefer,
        Tls::Verified { .. } | Tls::Encrypted => SslMode::Require,
    });
    let ignored_passfile = find_password(target, &mut config);
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(10));
    }
    Ok(ConnectPlan {
        config,
        tls,
        ignored_passfile,
    })
}

/// The URL (or `keyword = value` string) without `sslmode` and `sslrootcert`, which the
/// driver does not know, and their values.
fn take_tls_parameters(
    target: &Target,
) -> anyhow::Result<(String, Option<String>, Option<PathBuf>)> {
    let url = target.url.expose_secret();
    let mut sslmode = None;
    let mut root_cert = None;
    let rebuilt = if is_url(url) {
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let mut passed = Vec::new();
        for pair in query.split('&').filter(|pair| !pair.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            match key {
                "sslmode" => sslmode = Some(value.to_string()),
                "sslrootcert" => root_cert = Some(PathBuf::from(value)),
                _ => passed.push(pair),
            }
        }
        if passed.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{}", passed.join("&"))
        }
    } else {
        let mut passed = Vec::new();
        for (key, value) in conninfo_pairs(url).map_err(|why| unusable(target, why))? {
            match key.as_str() {
                "sslmode" => sslmode = Some(value),
                "sslrootcert" => root_cert = Some(PathBuf::from(value)),
                _ => passed.push((key, value)),
            }
        }
        conninfo_text(&passed)
    };
    Ok((rebuilt, sslmode, root_cert))
}

/// What `sslmode` asks of the connection, libpq's way.
fn tls_of(
    target: &Target,
    sslmode: Option<&str>,
    root_cert: Option<PathBuf>,
) -> anyhow::Result<Tls> {
    Ok(match sslmode {
        Some("disable") => Tls::Off,
        None | Some("allow") | Some("prefer") => Tls::Prefer,
        Some("require") if root_cert.is_none() => Tls::Encrypted,
        Some("require") | Some("verify-ca") => Tls::Verified {
            root_cert,
            names: false,
        },
        Some("verify-full") => Tls::Verified {
            root_cert,
            names: true,
        },
        Some(other) => {
            return Err(unusable(
                target,
                format!(
                    "unknown sslmode `{other}`: write disable, allow, prefer, require, verify-ca or verify-full"
                ),
            ))
        }
    })
}

/// Gives `config` the password libpq would find when the URL has none (`PGPASSWORD`, then the
/// passfile); returns a passfile ignored for its mode.
fn find_password(target: &Target, config: &mut postgres::Config) -> Option<(PathBuf, u32)> {
    if config.get_password().is_some() {
        return None;
    }
    if let Some(password) = &target.password_env {
        config.password(password.expose_secret());
        return None;
    }
    match passfile_password(target, config) {
        Passfile::Found(password) => {
            config.password(password.expose_secret());
            None
        }
        Passfile::Ignored(path, mode) => Some((path, mode)),
        Passfile::None => None,
    }
}

/// What a passfile gave for a connection.
enum Passfile {
    Found(SecretString),
    /// It holds a password for the connection but others can read it: ignored, as libpq
    /// ignores it ("password file has group or world access").
    Ignored(PathBuf, u32),
    None,
}

/// The password a passfile holds for this connection: its first line whose
/// `host:port:database:user` fields match (`*` matches anything; `\` escapes `:` and `\`).
/// Like libpq, a passfile others can read is ignored.
fn passfile_password(target: &Target, config: &postgres::Config) -> Passfile {
    let Some(path) = target.passfile.as_ref() else {
        return Passfile::None;
    };
    let Some(password) = passfile_line(path, config) else {
        return Passfile::None;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map_or(0, |metadata| metadata.permissions().mode());
        if mode & 0o077 != 0 {
            return Passfile::Ignored(path.clone(), mode & 0o777);
        }
    }
    Passfile::Found(password)
}

fn passfile_line(path: &Path, config: &postgres::Config) -> Option<SecretString> {
    let text = std::fs::read_to_string(path).ok()?;
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(name)) => name.clone(),
        #[cfg(unix)]
        Some(Host::Unix(_)) | None => "localhost".to_string(),
        #[cfg(not(unix))]
        None => "localhost".to_string(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let database = config
        .get_dbname()
        .or(config.get_user())
        .unwrap_or_default()
        .to_string();
    let user = config.get_user().unwrap_or_default().to_string();
    let wanted = [host, port, database, user];
    text.lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .find_map(|line| {
            let fields = passfile_fields(line);
            if fields.len() != 5 {
                return None;
            }
            let matches = fields[..4]
                .iter()
                .zip(&wanted)
                .all(|(field, wanted)| field == "*" || field == wanted);
            matches.then(|| SecretString::from(fields[4].clone()))
        })
}

fn passfile_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut characters = line.chars();
    while let Some(character) = characters.next() {
        match character {
            '\\' => {
                if let (Some(next), Some(field)) = (characters.next(), fields.last_mut()) {
                    field.push(next);
                }
            }
            ':' if fields.len() < 5 => fields.push(String::new()),
            other => {
                if let Some(field) = fields.last_mut() {
                    field.push(other);
                }
            }
        }
    }
    fields
}

/// The rustls connector for `tls` (plaintext gets one too: the driver takes one either way).
pub fn connector(
    target: &Target,
    tls: &Tls,
) -> anyhow::Result<tokio_postgres_rustls::MakeRustlsConnect> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let (root_cert, names) = match tls {
        Tls::Off | Tls::Prefer | Tls::Encrypted => {
            let config = rustls::ClientConfig::builder_with_provider(provider.clone())
                .with_safe_default_protocol_versions()
                .map_err(|error| unusable(target, error))?
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(Unchecked(provider)))
                .with_no_client_auth();
            return Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config));
        }
        Tls::Verified { root_cert, names } => (root_cert.clone(), *names),
    };
    let mut roots = RootCertStore::empty();
    match &root_cert {
        Some(path) => {
            for cert in read_certs(target, path)? {
                roots.add(cert).map_err(|error| {
                    unusable(target, format!("sslrootcert {}: {error}", path.display()))
                })?;
            }
        }
        None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
    }
    let verifier = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .map_err(|error| unusable(target, error))?;
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| unusable(target, error))?;
    let config = if names {
        builder.with_webpki_verifier(verifier).with_no_client_auth()
    } else {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(ChainOnly(verifier)))
            .with_no_client_auth()
    };
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

fn read_certs(target: &Target, path: &Path) -> anyhow::Result<Vec<CertificateDer<'static>>> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<Result<_, _>>())
        .map_err(|error| unusable(target, format!("sslrootcert {}: {error}", path.display())))?;
    if certs.is_empty() {
        return Err(unusable(
            target,
            format!("sslrootcert {} holds no PEM certificate", path.display()),
        ));
    }
    Ok(certs)
}

/// `sslmode=verify-ca`: the chain must lead to a trusted root; the name on the certificate is
/// not checked (as libpq does for verify-ca).
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        // rustls checks the chain before the name: a name error means the chain was good.
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// `allow`, `prefer` and `require` without a root certificate: the connection is encrypted
/// but the certificate is not checked, as libpq does not check it for these modes. The
/// handshake's signatures are still verified, so the server holds the certificate's key.
#[derive(Debug)]
struct Unchecked(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// Connects, saying what failed without the password (the driver's errors never carry it):
/// the TLS handshake, a refused password (and a passfile ignored for its permissions), a
/// database that is not there, each in words of its own.
pub fn connect(target: &Target) -> anyhow::Result<postgres::Client> {
    let plan = plan(target)?;
    let connector = connector(target, &plan.tls)?;
    let user = plan.config.get_user().unwrap_or_default().to_string();
    let database = plan
        .config
        .get_dbname()
        .unwrap_or(user.as_str())
        .to_string();
    plan.config.connect(connector).map_err(|error| {
        let why = connect_failure(&error, &plan.tls, &user, &database);
        let why = match &plan.ignored_passfile {
            Some((path, mode)) => format!(
                "{why}; the passfile {} was ignored: others can read it (mode {mode:o}); run `chmod 600 {}`",
                path.display(),
                path.display()
            ),
            None => why,
        };
        unusable(target, why)
    })
}

/// What a failed connection came to, in words.
fn connect_failure(error: &postgres::Error, tls: &Tls, user: &str, database: &str) -> String {
    use postgres::error::SqlState;
    if let Some(db) = error.as_db_error() {
        let code = db.code();
        if *code == SqlState::INVALID_PASSWORD
            || *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION
        {
            return format!(
                "the server refused the password of user {user} ({})",
                db.message()
            );
        }
        if *code == SqlState::INVALID_CATALOG_NAME {
            return format!("the server has no database {database} ({})", db.message());
        }
        return format!("the server refused the connection: {}", db.message());
    }
    // A rustls error anywhere in the chain: the handshake failed.
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(cause) = source {
        if let Some(tls_error) = cause.downcast_ref::<rustls::Error>() {
            let hint = match tls {
                Tls::Verified { root_cert: None, .. } => {
                    "; no root certificate was given (sslrootcert, PGSSLROOTCERT or ~/.postgresql/root.crt), so the public roots were used"
                }
                Tls::Verified { names: true, .. } => {
                    "; verify-full also checks the host name against the certificate"
                }
                _ => "",
            };
            return format!("the TLS handshake failed: {tls_error}{hint}");
        }
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            if let Some(inner) = io.get_ref() {
                if let Some(tls_error) = inner.downcast_ref::<rustls::Error>() {
                    return format!("the TLS handshake failed: {tls_error}");
                }
            }
        }
        source = cause.source();
    }
    let text = error.to_string();
    if text.contains("TLS") || text.contains("tls") || text.contains("certificate") {
        return format!("the TLS handshake failed: {text}");
    }
    if matches!(tls, Tls::Verified { .. } | Tls::Encrypted)
        && text.contains("server does not support TLS")
    {
        return format!("the server offers no TLS and sslmode asks for it: {text}");
    }
    text
}

/// What to tell a maintainer about a PostgreSQL error that has a known cause beyond the
/// server's words: a prepared statement the server does not have (`26000`), which is what a
/// pooler in transaction mode (PgBouncer's `pool_mode = transaction`) makes of the driver's
/// named statements, since each transaction may go to another server connection. gh-sweep
/// refuses such a pooler rather than work through it.
pub fn explain(error: &postgres::Error, shown: &str) -> Option<String> {
    let db = error.as_db_error()?;
    (*db.code() == postgres::error::SqlState::INVALID_SQL_STATEMENT_NAME).then(|| {
        format!(
            "the database {shown} answered `{}`: it is reached through a pooler in transaction pooling mode (PgBouncer's pool_mode = transaction), which hands each transaction to another server connection where gh-sweep's prepared statements are not; connect gh-sweep to PostgreSQL itself, or to a pool with pool_mode = session (PgBouncer 1.21 or later also keeps prepared statements with max_prepared_statements set)",
            db.message()
        )
    })
}

#[cfg(test)]
#[path = "connect_tests.rs"]
mod tests;
