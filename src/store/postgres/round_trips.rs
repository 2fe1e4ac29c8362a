//! What a claim and a complete cost on the wire, counted rather than timed: the store talks to
//! the test server through a proxy that reads the frontend protocol's messages and counts, per
//! connection, the requests that wait for the server (each `Sync` or simple `Query` ends one
//! round trip) and the statements parsed (`Parse`).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::Utc;

use super::test_server::fresh_database;
use super::{Liveness, PostgresStore, Target};
use crate::item::RepoRef;
use crate::store::queue::{merge_key, NewRow};
use crate::store::MergeQueue;

/// What one connection sent.
#[derive(Default)]
struct Counts {
    round_trips: AtomicUsize,
    parses: AtomicUsize,
}

impl Counts {
    fn read(&self) -> (usize, usize) {
        (
            self.round_trips.load(Ordering::SeqCst),
            self.parses.load(Ordering::SeqCst),
        )
    }
}

fn read_message(from: &mut TcpStream, typed: bool) -> std::io::Result<(Option<u8>, Vec<u8>)> {
    let mut kind = [0u8; 1];
    if typed {
        from.read_exact(&mut kind)?;
    }
    let mut length = [0u8; 4];
    from.read_exact(&mut length)?;
    let mut body = vec![0u8; (u32::from_be_bytes(length) as usize).saturating_sub(4)];
    from.read_exact(&mut body)?;
    let mut whole = Vec::new();
    if typed {
        whole.push(kind[0]);
    }
    whole.extend_from_slice(&length);
    whole.extend_from_slice(&body);
    Ok((typed.then_some(kind[0]), whole))
}

/// Forwards what the client sends, message by message, counting.
fn forward_counted(mut client: TcpStream, mut server: TcpStream, counts: &Counts) {
    // The startup message and any SSL or GSS request before it have no type byte.
    loop {
        let Ok((_, whole)) = read_message(&mut client, false) else {
            return;
        };
        let code = u32::from_be_bytes([whole[4], whole[5], whole[6], whole[7]]);
        if server.write_all(&whole).is_err() {
            return;
        }
        if code != 80877103 && code != 80877104 {
            break;
        }
    }
    while let Ok((kind, whole)) = read_message(&mut client, true) {
        match kind {
            Some(b'S' | b'Q') => counts.round_trips.fetch_add(1, Ordering::SeqCst),
            Some(b'P') => counts.parses.fetch_add(1, Ordering::SeqCst),
            _ => 0,
        };
        if server.write_all(&whole).is_err() {
            return;
        }
    }
    let _ = server.shutdown(std::net::Shutdown::Both);
}

/// A proxy to `port` on 127.0.0.1; the counts of each connection, in the order they came.
fn proxy(port: u16) -> (u16, Arc<Mutex<Vec<Arc<Counts>>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let listening = listener.local_addr().unwrap().port();
    let connections: Arc<Mutex<Vec<Arc<Counts>>>> = Arc::default();
    let kept = connections.clone();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { return };
            let Ok(server) = TcpStream::connect(("127.0.0.1", port)) else {
                return;
            };
            let counts = Arc::new(Counts::default());
            kept.lock().unwrap().push(counts.clone());
            let (mut answers, mut back) =
                (server.try_clone().unwrap(), client.try_clone().unwrap());
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut answers, &mut back);
                let _ = back.shutdown(std::net::Shutdown::Both);
            });
            std::thread::spawn(move || forward_counted(client, server, &counts));
        }
    });
    (listening, connections)
}

#[test]
fn a_claim_and_its_complete_take_five_round_trips_and_parse_nothing_once_warm() {
    let url = fresh_database();
    // postgres://postgres@127.0.0.1:PORT/DATABASE?sslmode=disable
    let (head, rest) = url.split_once("127.0.0.1:").unwrap();
    let (port, tail) = rest.split_once('/').unwrap();
    let (proxied, connections) = proxy(port.parse().unwrap());
    let mut target = Target::new(&format!("{head}127.0.0.1:{proxied}/{tail}"), "a".into());
    // No heartbeat renewal during the test: its connection's messages are its own anyway.
    target.liveness = Liveness {
        renew_every: Duration::from_secs(3600),
        ..target.liveness
    };
    let mut store = PostgresStore::open(&target).unwrap();
    let repo: RepoRef = "o/r".parse().unwrap();
    let now = Utc::now();
    let rows = 12;
    for pr in 0..rows {
        let key = merge_key(&repo, pr, "h");
        let row = NewRow {
            key: &key,
            kind: "merge",
            repo: &repo,
            pr,
            head_sha: Some("h"),
            max_attempts: 3,
        };
        store.enqueue(&row, now).unwrap();
    }
    let counts = connections.lock().unwrap()[0].clone();
    let lease = chrono::Duration::minutes(30);
    let mut claim_and_complete = || {
        let claim = store
            .claim(
                now,
                "run-1",
                std::slice::from_ref(&repo),
                lease,
                &mut |_, _, _| true,
            )
            .unwrap()
            .unwrap();
        assert!(store.complete(&claim.key, "run-1", now).unwrap());
    };
    // The first claim and complete prepare their statements.
    claim_and_complete();
    let before = counts.read();
    let claims = rows as usize - 1;
    for _ in 0..claims {
        claim_and_complete();
    }
    let after = counts.read();
    // BEGIN, the candidate with its facts, the lease, COMMIT; the complete.
    assert_eq!(after.0 - before.0, 5 * claims, "round trips");
    assert_eq!(after.1 - before.1, 0, "statements parsed again");
    // An empty queue: BEGIN, the candidate found missing, COMMIT.
    assert!(store
        .claim(
            now,
            "run-1",
            std::slice::from_ref(&repo),
            lease,
            &mut |_, _, _| true
        )
        .unwrap()
        .is_none());
    assert_eq!(counts.read().0 - after.0, 3);
}
