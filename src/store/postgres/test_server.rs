//! A throwaway PostgreSQL server for tests: `initdb` and `pg_ctl` in a temp dir, on a free
//! 127.0.0.1 port, one per test binary (started on first use, shared), a database per test.
//! Run as the `postgres` system user (`runuser`) when the tests run as root, since `initdb`
//! refuses root; directly otherwise. Stopped when the test binary exits (an `atexit` handler),
//! and by a watchdog process if the binary is killed, so no server outlives its tests. Used by
//! the store's unit tests and (through `#[path]`) by the end-to-end tests; never by the tool.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The superuser's password: the server asks for one on TCP (`scram-sha-256`), as a real one
/// would, so the tests exercise the password paths.
pub const PASSWORD: &str = "pg-SENTINEL-password-31337";

/// The running server: where it listens and where its files are.
pub struct TestServer {
    pub port: u16,
    dir: PathBuf,
    bin: PathBuf,
    as_postgres: bool,
}

static SERVER: OnceLock<Result<TestServer, String>> = OnceLock::new();
/// A second server without TLS, for the tests of a server that offers none.
static PLAINTEXT: OnceLock<Result<TestServer, String>> = OnceLock::new();
/// A third one whose certificate a private CA signed, for 127.0.0.1 and localhost.
static CA_SIGNED: OnceLock<Result<TestServer, String>> = OnceLock::new();

/// What TLS a test server offers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Offer {
    None,
    SelfSigned,
    CaSigned,
}
static DATABASES: AtomicU64 = AtomicU64::new(0);

/// The shared server, started on first use. Panics (failing the test) when PostgreSQL cannot
/// be started: the tests need it, and `.ci/run` installs it.
pub fn server() -> &'static TestServer {
    match SERVER.get_or_init(|| start(Offer::SelfSigned)) {
        Ok(server) => server,
        Err(why) => panic!("cannot start a throwaway PostgreSQL: {why}"),
    }
}

// Used by one of the two crates that include this file (the store's unit tests, the
// end-to-end tests), not both.
#[allow(dead_code)]
/// The shared server without TLS (it answers a client's request for TLS with no), started on
/// first use.
pub fn plaintext_server() -> &'static TestServer {
    match PLAINTEXT.get_or_init(|| start(Offer::None)) {
        Ok(server) => server,
        Err(why) => panic!("cannot start a throwaway PostgreSQL without TLS: {why}"),
    }
}

// Used by one of the two crates that include this file, not both.
#[allow(dead_code)]
/// A server whose certificate (for 127.0.0.1 and localhost) a private CA signed, started on
/// first use; the CA's certificate is [`TestServer::ca_certificate`].
pub fn ca_signed_server() -> &'static TestServer {
    match CA_SIGNED.get_or_init(|| start(Offer::CaSigned)) {
        Ok(server) => server,
        Err(why) => {
            panic!("cannot start a throwaway PostgreSQL with a CA-signed certificate: {why}")
        }
    }
}

/// A new empty database on the shared server; its URL (with the password).
pub fn fresh_database() -> String {
    fresh_database_on(server())
}

/// A new empty database on `server`; its URL (with the password).
pub fn fresh_database_on(server: &TestServer) -> String {
    let name = format!(
        "t{}_{}",
        std::process::id(),
        DATABASES.fetch_add(1, Ordering::SeqCst)
    );
    let mut admin = postgres::Client::connect(&server.url("postgres"), postgres::NoTls)
        .unwrap_or_else(|error| panic!("connecting to the throwaway PostgreSQL: {error}"));
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap_or_else(|error| panic!("creating database {name}: {error}"));
    server.url(&name)
}

impl TestServer {
    /// The URL of database `name`, with the superuser's password.
    pub fn url(&self, name: &str) -> String {
        format!(
            "postgres://postgres:{PASSWORD}@127.0.0.1:{}/{name}?sslmode=disable",
            self.port
        )
    }

    fn command(&self, program: &str) -> Command {
        command(&self.bin, program, self.as_postgres)
    }
}

fn command(bin: &Path, program: &str, as_postgres: bool) -> Command {
    let path = bin.join(program);
    if as_postgres {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(path);
        command
    } else {
        Command::new(path)
    }
}

/// Where `initdb` and `pg_ctl` are: Debian keeps them under `/usr/lib/postgresql/N/bin`, off
/// `PATH`; the newest version there, else `PATH`.
fn binaries() -> Result<PathBuf, String> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_string_lossy().parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    found.sort();
    if let Some((_, bin)) = found.pop() {
        return Ok(bin);
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .find(|dir| dir.join("initdb").exists() && dir.join("pg_ctl").exists())
        .ok_or_else(|| "no initdb under /usr/lib/postgresql/*/bin or on PATH".to_string())
}

fn run(mut command: Command, what: &str) -> Result<(), String> {
    let output = command
        .stdin(Stdio::null())
        .output()
        .map_err(|error| format!("{what}: {error}"))?;
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "{what} failed ({}): {}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ))
}

fn free_port() -> Result<u16, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|error| error.to_string())?;
    listener
        .local_addr()
        .map(|address| address.port())
        .map_err(|error| error.to_string())
}

fn start(offer: Offer) -> Result<TestServer, String> {
    let bin = binaries()?;
    let as_postgres = is_root();
    let dir = std::env::temp_dir().join(format!(
        "gh-sweep-pg-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|time| time.as_nanos())
            .unwrap_or_default()
    ));
    std::fs::create_dir_all(&dir).map_err(|error| error.to_string())?;
    if as_postgres {
        run(
            {
                let mut chown = Command::new("chown");
                chown.arg("postgres:postgres").arg(&dir);
                chown
            },
            "chown",
        )?;
    }
    let pwfile = dir.join("pwfile");
    std::fs::write(&pwfile, PASSWORD).map_err(|error| error.to_string())?;
    if as_postgres {
        run(
            {
                let mut chown = Command::new("chown");
                chown.arg("postgres:postgres").arg(&pwfile);
                chown
            },
            "chown",
        )?;
    }
    let tls = match offer {
        Offer::None => None,
        Offer::SelfSigned => self_signed(&dir, as_postgres),
        Offer::CaSigned => Some(ca_signed(&dir, as_postgres)?),
    };
    let data = dir.join("data");
    let mut initdb = command(&bin, "initdb", as_postgres);
    initdb
        .arg("-D")
        .arg(&data)
        .args([
            "-U",
            "postgres",
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
        ])
        .arg(format!("--pwfile={}", pwfile.display()))
        .args(["-E", "UTF8", "--locale=C", "--no-sync"]);
    run(initdb, "initdb")?;
    let mut last = String::new();
    for _ in 0..5 {
        let port = free_port()?;
        let server = TestServer {
            port,
            dir: dir.clone(),
            bin: bin.clone(),
            as_postgres,
        };
        // TLS on a self-signed certificate, as Debian's `ssl = on` with its snakeoil one:
        // offered to clients that ask, never required (the tests' URLs say sslmode=disable).
        let ssl = tls.as_ref().map_or(String::new(), |(cert, key)| {
            format!(
                " -c ssl=on -c ssl_cert_file={} -c ssl_key_file={}",
                cert.display(),
                key.display()
            )
        });
        let mut pg_ctl = server.command("pg_ctl");
        pg_ctl
            .arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(dir.join("log"))
            .arg("-o")
            .arg(format!(
                "-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} \
                 -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
                 -c max_connections=300{ssl}",
                dir.display()
            ))
            .args(["-w", "-t", "60", "start"]);
        match run(pg_ctl, "pg_ctl start") {
            Ok(()) => {
                watch(&server);
                register_stop();
                wait_ready(&server)?;
                return Ok(server);
            }
            Err(why) => last = why,
        }
    }
    Err(last)
}

/// A self-signed certificate for the server (`openssl req -x509`, named `pg-test-server`, not
/// 127.0.0.1) and its key, readable by the server's user only; `None` without `openssl`.
fn self_signed(dir: &Path, as_postgres: bool) -> Option<(PathBuf, PathBuf)> {
    let cert = dir.join("server.crt");
    let key = dir.join("server.key");
    let mut openssl = Command::new("openssl");
    openssl
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        ])
        .args(["-subj", "/CN=pg-test-server"])
        .args(["-addext", "basicConstraints=critical,CA:FALSE"])
        .args(["-addext", "subjectAltName=DNS:pg-test-server", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert);
    run(openssl, "openssl req").ok()?;
    if as_postgres {
        let mut chown = Command::new("chown");
        chown.arg("postgres:postgres").arg(&cert).arg(&key);
        run(chown, "chown").ok()?;
    }
    let mut chmod = Command::new("chmod");
    chmod.arg("600").arg(&key);
    run(chmod, "chmod").ok()?;
    Some((cert, key))
}

/// A private CA (`ca.crt`) and a server certificate it signed for 127.0.0.1 and localhost,
/// with its key, readable by the server's user only.
fn ca_signed(dir: &Path, as_postgres: bool) -> Result<(PathBuf, PathBuf), String> {
    let ca_key = dir.join("ca.key");
    let ca = dir.join("ca.crt");
    let mut make_ca = Command::new("openssl");
    make_ca
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        ])
        .args(["-subj", "/CN=gh-sweep test CA"])
        .args(["-addext", "basicConstraints=critical,CA:TRUE"])
        .args([
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
            "-keyout",
        ])
        .arg(&ca_key)
        .arg("-out")
        .arg(&ca);
    run(make_ca, "openssl req (CA)")?;
    let key = dir.join("server.key");
    let request = dir.join("server.csr");
    let mut make_request = Command::new("openssl");
    make_request
        .args([
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=127.0.0.1",
            "-keyout",
        ])
        .arg(&key)
        .arg("-out")
        .arg(&request);
    run(make_request, "openssl req (server)")?;
    let extensions = dir.join("server.ext");
    std::fs::write(
        &extensions,
        "basicConstraints=critical,CA:FALSE\nsubjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n",
    )
    .map_err(|error| error.to_string())?;
    let cert = dir.join("server.crt");
    let mut sign = Command::new("openssl");
    sign.args(["x509", "-req", "-days", "2", "-in"])
        .arg(&request)
        .arg("-CA")
        .arg(&ca)
        .arg("-CAkey")
        .arg(&ca_key)
        .arg("-CAcreateserial")
        .arg("-extfile")
        .arg(&extensions)
        .arg("-out")
        .arg(&cert);
    run(sign, "openssl x509 -req")?;
    if as_postgres {
        let mut chown = Command::new("chown");
        chown.arg("postgres:postgres").arg(&cert).arg(&key);
        run(chown, "chown")?;
    }
    let mut chmod = Command::new("chmod");
    chmod.arg("600").arg(&key);
    run(chmod, "chmod")?;
    Ok((cert, key))
}

impl TestServer {
    // Used by one of the two crates that include this file, not both.
    #[allow(dead_code)]
    /// The private CA that signed the server's certificate, for a CA-signed server.
    pub fn ca_certificate(&self) -> Option<PathBuf> {
        let ca = self.dir.join("ca.crt");
        ca.exists().then_some(ca)
    }

    // Used by one of the two crates that include this file (the store's unit tests, the
    // end-to-end tests), not both.
    #[allow(dead_code)]
    /// The server's self-signed certificate, when it was started with TLS.
    pub fn certificate(&self) -> Option<PathBuf> {
        let cert = self.dir.join("server.crt");
        cert.exists().then_some(cert)
    }

    // Used by one of the two crates that include this file (the store's unit tests, the
    // end-to-end tests), not both.
    #[allow(dead_code)]
    /// The URL of database `name` without `sslmode`: what a maintainer types.
    pub fn plain_url(&self, name: &str) -> String {
        format!(
            "postgres://postgres:{PASSWORD}@127.0.0.1:{}/{name}",
            self.port
        )
    }
}

/// Whether this process runs as root (then the server runs as `postgres`).
fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn wait_ready(server: &TestServer) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match postgres::Client::connect(&server.url("postgres"), postgres::NoTls) {
            Ok(_) => return Ok(()),
            Err(error) if Instant::now() > deadline => return Err(error.to_string()),
            Err(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    }
}

/// A shell that stops the server and removes its files once this process is gone, however it
/// ended (a SIGKILL runs no `atexit`).
fn watch(server: &TestServer) {
    let data = server.dir.join("data");
    let pg_ctl = server.bin.join("pg_ctl");
    let stop = if server.as_postgres {
        format!(
            "runuser -u postgres -- {} -D {} stop -m immediate",
            pg_ctl.display(),
            data.display()
        )
    } else {
        format!(
            "{} -D {} stop -m immediate",
            pg_ctl.display(),
            data.display()
        )
    };
    let script = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 1; done; {stop} >/dev/null 2>&1; rm -rf {dir}",
        pid = std::process::id(),
        dir = server.dir.display()
    );
    let _ = Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
}

extern "C" fn stop_at_exit() {
    for server in [SERVER.get(), PLAINTEXT.get(), CA_SIGNED.get()] {
        let Some(Ok(server)) = server else {
            continue;
        };
        let mut pg_ctl = server.command("pg_ctl");
        pg_ctl
            .arg("-D")
            .arg(server.dir.join("data"))
            .args(["stop", "-m", "immediate", "-w"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let _ = pg_ctl.status();
        let _ = std::fs::remove_dir_all(&server.dir);
    }
}

fn register_stop() {
    // The test harness ends with `exit`, which runs `atexit` handlers (a test's panic is
    // caught by the harness, so this runs then too).
    unsafe {
        libc::atexit(stop_at_exit);
    }
}
