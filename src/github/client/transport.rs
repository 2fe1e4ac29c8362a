//! The one place the HTTP client library is used: a blocking `ureq` agent (no async runtime:
//! the process starts no thread of its own for HTTP), one request sent with what every request
//! to GitHub carries, an answer's body read against the deadline and the body cap, and a
//! request that got no answer, in words.

use std::time::{Duration, Instant};

use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;
use ureq::http::header::{AUTHORIZATION, CONTENT_TYPE};
use ureq::http::{HeaderValue, Method};

/// The HTTP agent: its connections are kept between requests.
pub(super) type Http = ureq::Agent;

/// An answer, whatever its status.
pub(super) type Response = ureq::http::Response<ureq::Body>;

/// The largest answer a read accepts: a page of 100 items with long bodies, or a GraphQL page
/// of 50 pull requests with their reviews and checks, is a few MiB, over ureq's 10 MB default
/// for reading a body whole only for the largest timelines. The cap is ours, set on every body
/// read, so one slow giant cannot take the memory and an answer up to it is read.
pub(super) const MAX_BODY: u64 = 32 << 20;

/// The most bytes of headers an answer may carry, and the input buffer that holds them.
pub(super) const MAX_HEADERS: usize = 32 << 10;

/// The buffer a request is written through: its line and headers (well under 1 KiB) and its
/// body in chunks.
const OUTPUT_BUFFER: usize = 16 << 10;

/// GitHub's REST API version every request asks for ("API Versions": the
/// `X-GitHub-Api-Version` header).
const API_VERSION: &str = "2022-11-28";

/// The agent every request goes through. Its configuration is what the client relies on:
/// - a status is an answer, never an error (ureq's default turns 4xx and 5xx into errors; the
///   client classifies every status itself);
/// - no redirect is followed (a 301'd POST would be replayed as a GET and "succeed"; reads
///   follow one by hand, only on the API host);
/// - `timeout` bounds the whole request, body included, and a connection takes at most 10 s
///   of it;
/// - gzip is asked for and decoded (GitHub compresses its answers; the body cap counts the
///   decoded bytes);
/// - a proxy is taken from `ALL_PROXY`, `HTTPS_PROXY` or `HTTP_PROXY` (and `NO_PROXY`), as
///   ureq reads them;
/// - each connection's buffers are sized for GitHub's answers, not ureq's 128 KiB each: a
///   connection allocates and zeroes both when it opens, which was a third of a REST sweep's
///   instructions when every answer closed its connection. The input buffer must hold an
///   answer's headers whole (ureq refuses headers it cannot fit): GitHub's are a few KiB
///   (rate-limit, `Link`, security headers); [`MAX_HEADERS`] leaves room for a proxy's.
pub(super) fn agent(timeout: Duration) -> Http {
    let config = Http::config_builder()
        .input_buffer_size(MAX_HEADERS)
        .max_response_header_size(MAX_HEADERS)
        .output_buffer_size(OUTPUT_BUFFER)
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(timeout))
        .timeout_connect(Some(timeout.min(Duration::from_secs(10))))
        .user_agent(concat!("gh-sweep/", env!("CARGO_PKG_VERSION")))
        .accept("application/vnd.github+json")
        .build();
    Http::with_parts(
        config,
        ureq::unversioned::transport::DefaultConnector::default(),
        Resolver::default(),
    )
}

/// ureq's resolver, except for a host written as an IP address (a GitHub Enterprise server
/// reached by its address, a proxy on the machine): that is its own address, and needs no
/// lookup. ureq's own looks every host up, and with a timeout set does so on a thread of its
/// own, started for each new connection.
#[derive(Debug, Default)]
struct Resolver(ureq::unversioned::resolver::DefaultResolver);

impl ureq::unversioned::resolver::Resolver for Resolver {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: ureq::unversioned::transport::NextTimeout,
    ) -> Result<ureq::unversioned::resolver::ResolvedSocketAddrs, ureq::Error> {
        match literal_address(uri) {
            Some(address) => {
                let mut addresses = self.empty();
                addresses.push(address);
                Ok(addresses)
            }
            None => self.0.resolve(uri, config, timeout),
        }
    }
}

/// The socket address of a URI whose host is an IP address (`[…]` for IPv6), with its port or
/// its scheme's.
fn literal_address(uri: &ureq::http::Uri) -> Option<std::net::SocketAddr> {
    let host = uri.host()?;
    let host = host
        .strip_prefix('[')
        .and_then(|host| host.strip_suffix(']'))
        .unwrap_or(host);
    let ip: std::net::IpAddr = host.parse().ok()?;
    let port = uri.port_u16().or(match uri.scheme_str() {
        Some("https") => Some(443),
        Some("http") => Some(80),
        _ => None,
    })?;
    Some(std::net::SocketAddr::new(ip, port))
}

/// One request to `url`, with the token (marked sensitive) and GitHub's API version, and the
/// extra `headers` (an `Accept` here replaces the agent's): the answer, whatever its status,
/// or why there was none. A `body` is sent as JSON.
pub(super) fn send(
    http: &Http,
    method: Method,
    url: &str,
    token: &SecretString,
    headers: &[(&str, String)],
    body: Option<&Value>,
) -> Result<Response, ureq::Error> {
    // Parsed as a URL first, so an address is normalised (percent-encoded) the way a browser
    // and GitHub's own `Link` URLs are.
    let url = url::Url::parse(url).map_err(|error| ureq::Error::BadUri(error.to_string()))?;
    let mut request = ureq::http::Request::builder()
        .method(method)
        .uri(url.as_str())
        .header(AUTHORIZATION, bearer(token))
        .header("X-GitHub-Api-Version", API_VERSION);
    for (name, value) in headers {
        request = request.header(*name, value.as_str());
    }
    match body {
        None => http.run(request.body(())?),
        Some(body) => {
            let bytes = serde_json::to_vec(body).unwrap_or_default();
            http.run(
                request
                    .header(CONTENT_TYPE, "application/json")
                    .body(bytes)?,
            )
        }
    }
}

/// The `Authorization` header for the token, marked sensitive so it is never shown.
fn bearer(token: &SecretString) -> HeaderValue {
    let mut value = HeaderValue::from_str(&format!("Bearer {}", token.expose_secret()))
        .unwrap_or_else(|_| HeaderValue::from_static("Bearer invalid"));
    value.set_sensitive(true);
    value
}

/// A response body read against the request's deadline: past it, the next read fails as a
/// timeout however steadily the bytes trickle in.
struct Deadline<R> {
    inner: R,
    deadline: Instant,
}

impl<R: std::io::Read> std::io::Read for Deadline<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if Instant::now() > self.deadline {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the answer took longer than timeout_seconds",
            ));
        }
        self.inner.read(buf)
    }
}

/// The body's bytes, read no further than one past the cap: anything past it is not an
/// answer to read into memory, whatever the server says. ureq's own limit is set to the same
/// cap plus one, so it is never what stops the read.
pub(super) fn read_capped(body: ureq::Body, deadline: Instant) -> std::io::Result<Vec<u8>> {
    let reader = body.into_with_config().limit(MAX_BODY + 1).reader();
    let capped = std::io::Read::take(
        Deadline {
            inner: reader,
            deadline,
        },
        MAX_BODY + 1,
    );
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut { capped }, &mut bytes)?;
    Ok(bytes)
}

/// A request that got no answer, in words: timed out, could not connect, or the connection
/// failed, with ureq's reason. ureq's text names neither the URL nor any header, so the token
/// cannot appear in it.
pub(super) fn describe_transport(error: &ureq::Error, url: &str) -> String {
    use std::io::ErrorKind;
    use ureq::Error;
    let what = match error {
        Error::Timeout(_) => "timed out",
        Error::Io(io) if io.kind() == ErrorKind::TimedOut => "timed out",
        Error::HostNotFound | Error::ConnectionFailed | Error::ConnectProxyFailed(_) => {
            "could not connect"
        }
        Error::Io(io)
            if matches!(
                io.kind(),
                ErrorKind::ConnectionRefused
                    | ErrorKind::AddrNotAvailable
                    | ErrorKind::HostUnreachable
                    | ErrorKind::NetworkUnreachable
            ) =>
        {
            "could not connect"
        }
        _ => "connection failed",
    };
    format!("request to {url} {what}: {error}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn a_host_written_as_an_ip_address_is_its_own_address_and_a_name_is_looked_up() {
        let address = |uri: &str| literal_address(&uri.parse().unwrap()).map(|a| a.to_string());
        assert_eq!(
            address("http://127.0.0.1:8080/x").as_deref(),
            Some("127.0.0.1:8080")
        );
        assert_eq!(
            address("https://[::1]/graphql").as_deref(),
            Some("[::1]:443")
        );
        assert_eq!(
            address("http://10.0.0.5/api/v3").as_deref(),
            Some("10.0.0.5:80")
        );
        assert_eq!(address("https://api.github.com/"), None);
        assert_eq!(address("https://ghe.example.com:8443/api/v3"), None);
    }

    /// A server on a local port that answers one connection with `answer`, and sends back
    /// what it was asked.
    fn server(answer: impl Into<Vec<u8>>) -> (String, std::sync::mpsc::Receiver<String>) {
        let answer = answer.into();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let (asked, heard) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = [0u8; 8192];
            let read = stream.read(&mut request).unwrap_or(0);
            let _ = asked.send(String::from_utf8_lossy(&request[..read]).into_owned());
            let _ = stream.write_all(&answer);
        });
        (format!("http://{address}"), heard)
    }

    fn token() -> SecretString {
        SecretString::from("ghp_never_shown_token".to_string())
    }

    #[test]
    fn a_status_is_an_answer_and_a_redirect_is_not_followed() {
        let (base, heard) = server(
            "HTTP/1.1 301 Moved Permanently\r\nlocation: /elsewhere\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        );
        let http = agent(Duration::from_secs(5));
        let response = send(
            &http,
            Method::POST,
            &format!("{base}/x"),
            &token(),
            &[],
            None,
        )
        .expect("a 301 is an answer");
        assert_eq!(response.status().as_u16(), 301);
        let asked = heard.recv().unwrap().to_ascii_lowercase();
        assert!(asked.starts_with("post /x "), "{asked}");
        assert!(asked.contains("authorization: bearer ghp_never_shown_token"));
        assert!(asked.contains("x-github-api-version: 2022-11-28"));
        assert!(asked.contains("accept: application/vnd.github+json"));
        assert!(asked.contains("user-agent: gh-sweep/"));

        let (base, _) =
            server("HTTP/1.1 404 Not Found\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}");
        let response = send(
            &http,
            Method::GET,
            &format!("{base}/y"),
            &token(),
            &[],
            None,
        )
        .expect("a 404 is an answer, not an error");
        assert_eq!(response.status().as_u16(), 404);
    }

    /// The buffers are sized down from ureq's defaults, not below what an answer needs: 20 KiB
    /// of headers (GitHub sends a few; a proxy may add more) and a 200 KiB request body (a
    /// GraphQL document with its variables) go through whole.
    #[test]
    fn answers_with_long_headers_and_requests_with_long_bodies_go_through() {
        let long = "x".repeat(20 << 10);
        let (base, _) = server(format!(
            "HTTP/1.1 200 OK\r\ncontent-security-policy: {long}\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{{}}"
        ));
        let http = agent(Duration::from_secs(5));
        let response = send(
            &http,
            Method::GET,
            &format!("{base}/h"),
            &token(),
            &[],
            None,
        )
        .expect("20 KiB of headers is an answer");
        assert_eq!(
            response.headers()["content-security-policy"].len(),
            long.len()
        );

        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let body = serde_json::json!({"query": "y".repeat(200 << 10)});
        let expected = serde_json::to_vec(&body).unwrap().len();
        let reader = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut asked = Vec::new();
            let mut chunk = [0u8; 16384];
            while !String::from_utf8_lossy(&asked).contains("}") {
                let read = stream.read(&mut chunk).unwrap();
                assert!(read > 0, "the request ended early");
                asked.extend_from_slice(&chunk[..read]);
            }
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}");
            asked
        });
        let response = send(
            &http,
            Method::POST,
            &format!("http://{address}/graphql"),
            &token(),
            &[],
            Some(&body),
        )
        .unwrap();
        assert_eq!(response.status().as_u16(), 200);
        let asked = reader.join().unwrap();
        let split = asked.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        assert_eq!(asked.len() - split, expected);
    }

    #[test]
    fn an_accept_of_the_request_replaces_the_agents() {
        let (base, heard) =
            server("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}");
        let http = agent(Duration::from_secs(5));
        let accept = [(
            "accept",
            "application/vnd.github.merge-info-preview+json".to_string(),
        )];
        send(
            &http,
            Method::POST,
            &format!("{base}/graphql"),
            &token(),
            &accept,
            None,
        )
        .unwrap();
        let asked = heard.recv().unwrap().to_ascii_lowercase();
        assert_eq!(asked.matches("accept:").count(), 1, "{asked}");
        assert!(asked.contains("accept: application/vnd.github.merge-info-preview+json"));
    }

    #[test]
    fn a_body_past_ureqs_10_mb_default_is_read_whole_up_to_the_cap() {
        let body = vec![b' '; 12 << 20];
        let mut answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        )
        .into_bytes();
        answer.extend_from_slice(&body);
        let (base, _) = server(answer);
        let http = agent(Duration::from_secs(30));
        let response = send(
            &http,
            Method::GET,
            &format!("{base}/z"),
            &token(),
            &[],
            None,
        )
        .unwrap();
        let bytes = read_capped(
            response.into_body(),
            Instant::now() + Duration::from_secs(30),
        );
        assert_eq!(bytes.unwrap().len(), 12 << 20);
    }

    #[test]
    fn no_answer_is_described_without_the_token() {
        // Nothing listens on a port just given back.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let http = agent(Duration::from_secs(5));
        let url = format!("http://127.0.0.1:{port}/repos/o/r");
        let error = send(&http, Method::GET, &url, &token(), &[], None).unwrap_err();
        let said = describe_transport(&error, &url);
        assert!(
            said.starts_with(&format!("request to {url} could not connect: ")),
            "{said}"
        );
        assert!(!said.contains("ghp_"), "{said}");
    }
}
