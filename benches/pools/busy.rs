//! Busy-repository pools (issue 24): a seeded generator of the archetypes a busy repository's
//! open items fall into, each item with a history of comments and timeline entries as GitHub
//! returns them (REST's `GET /repos/{o}/{r}/issues/{n}/timeline` and GraphQL's `timelineItems`,
//! which the fake builds from the world's events and comments, see
//! `tests/cli/support/world.rs`).
//!
//! The same seed and size give the same world, item for item: the pools are made, not
//! checked in. Each item's archetype and history come from its own generator (splitmix64 of
//! the seed and its number), so a pool of 10,000 is the first 10,000 items of the pool of
//! 100,000.

use chrono::{DateTime, Duration, Utc};

use crate::support::world::{Comment, Event, Issue, WorldState};

/// The seed the benchmark uses unless `GH_SWEEP_BENCH_SEED` names another.
pub const SEED: u64 = 24;

/// The label the busy pools' config exempts (`exempt_issue_labels`, `exempt_pr_labels`).
pub const EXEMPT_LABEL: &str = "pinned";

/// The `[stale]` config of a busy pool: the defaults (60 days to stale, 7 more to close) and
/// the exempt label.
pub const CONFIG: &str =
    "[stale]\nexempt_issue_labels = ['pinned']\nexempt_pr_labels = ['pinned']\n";

/// What a busy repository's open items are, in shares of 100.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Archetype {
    /// No activity for 61 to 400 days and no stale label: to be marked.
    Idle,
    /// The stale label, put on by the repository's workflow bot 1 to 30 days ago, nothing
    /// since: closed once the label is older than 7 days, else left to wait.
    StaleLabelled,
    /// The stale label, then only bots commented (a dependency bot, a coverage bot): bots are
    /// no activity, so these close or wait as the stale-labelled ones do.
    BotCommented,
    /// The stale label, then a person commented: the label comes off.
    Unstaled,
    /// Idle as long as the idle ones, but carrying the exempt label: left alone.
    Exempt,
    /// A person commented in the last 60 days: left alone.
    Fresh,
}

impl Archetype {
    pub const ALL: [Archetype; 6] = [
        Archetype::Idle,
        Archetype::StaleLabelled,
        Archetype::BotCommented,
        Archetype::Unstaled,
        Archetype::Exempt,
        Archetype::Fresh,
    ];

    /// The archetype a share `0..100` falls into: 20% idle, 15% stale-labelled, 10%
    /// bot-commented, 10% un-staled, 10% exempt, 35% fresh.
    fn of_share(share: u64) -> Archetype {
        match share {
            0..=19 => Archetype::Idle,
            20..=34 => Archetype::StaleLabelled,
            35..=44 => Archetype::BotCommented,
            45..=54 => Archetype::Unstaled,
            55..=64 => Archetype::Exempt,
            _ => Archetype::Fresh,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Archetype::Idle => "idle",
            Archetype::StaleLabelled => "stale-labelled",
            Archetype::BotCommented => "bot-commented",
            Archetype::Unstaled => "un-staled",
            Archetype::Exempt => "exempt",
            Archetype::Fresh => "fresh",
        }
    }
}

/// What a generated pool holds, for the benchmark's caption.
#[derive(Debug, Default)]
pub struct Census {
    pub items: u64,
    pub prs: u64,
    /// Items by archetype, in [`Archetype::ALL`]'s order.
    pub by_archetype: [u64; 6],
    /// Items whose timeline has more than 100 entries (GraphQL's page), and the most any has.
    pub long_timelines: u64,
    pub longest_timeline: usize,
    pub comments: u64,
    pub events: u64,
}

impl Census {
    pub fn describe(&self) -> String {
        let shares: Vec<String> = Archetype::ALL
            .iter()
            .zip(self.by_archetype)
            .map(|(kind, count)| format!("{count} {}", kind.name()))
            .collect();
        format!(
            "{} items ({} PRs): {}; {} comments and {} issue events; {} items with more than 100 timeline entries (the longest {})",
            self.items,
            self.prs,
            shares.join(", "),
            self.comments,
            self.events,
            self.long_timelines,
            self.longest_timeline
        )
    }
}

/// splitmix64: one item's stream of numbers.
struct Rng(u64);

impl Rng {
    fn new(seed: u64, number: u64) -> Rng {
        Rng(seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(number.wrapping_mul(0xD1B5_4A32_D192_ED03)))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut x = self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    }

    /// A number in `low..=high`.
    fn between(&mut self, low: u64, high: u64) -> u64 {
        low + self.next() % (high - low + 1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[(self.next() % from.len() as u64) as usize]
    }
}

const PEOPLE: &[&str] = &["alice", "bob", "carol", "dmitri", "eve", "farah", "gus"];
const MAINTAINERS: &[&str] = &["maintainer", "triager"];
const BOTS: &[&str] = &["dependabot[bot]", "codecov[bot]", "renovate[bot]"];
/// The bot of the repository's stale workflow: not gh-sweep's token, so REST reads the label's
/// events to learn who put it on and when.
const STALE_BOT: &str = "github-actions[bot]";
const LABELS: &[&str] = &["bug", "enhancement", "question", "needs-triage", "docs"];

/// Fills `world` with the pool and says what it holds.
pub fn generate(world: &mut WorldState, size: u64, seed: u64) -> Census {
    let mut census = Census {
        items: size,
        ..Census::default()
    };
    world.issues.reserve(size as usize);
    for number in 1..=size {
        let mut rng = Rng::new(seed, number);
        let kind = Archetype::of_share(rng.next() % 100);
        let is_pr = rng.chance(15);
        let long = rng.chance(2);
        let item = build(world, number, kind, is_pr, long, &mut rng);
        census.by_archetype[Archetype::ALL.iter().position(|k| *k == kind).unwrap()] += 1;
        census.prs += u64::from(is_pr);
        census.comments += item.comments as u64;
        census.events += item.events as u64;
        let entries = item.comments + item.events;
        census.long_timelines += u64::from(entries > 100);
        census.longest_timeline = census.longest_timeline.max(entries);
    }
    census
}

struct Built {
    comments: usize,
    events: usize,
}

/// One item: its history first (older than whatever decides it), then its archetype's tail.
fn build(
    world: &mut WorldState,
    number: u64,
    kind: Archetype,
    is_pr: bool,
    long: bool,
    rng: &mut Rng,
) -> Built {
    let now = world.now;
    let days = |d: u64| now - Duration::days(d as i64);
    // When the last thing that decides the item happened, and how old the item is.
    let (quiet_since, label_at) = match kind {
        Archetype::Idle | Archetype::Exempt => (days(rng.between(61, 400)), None),
        Archetype::Fresh => (days(rng.between(0, 59)), None),
        _ => {
            let labelled = days(rng.between(1, 30));
            (labelled - Duration::days(60), Some(labelled))
        }
    };
    let created = quiet_since - Duration::days(rng.between(1, 700) as i64);
    let mut ids = Vec::new();
    let issue = world.open_issue(number, 0);
    issue.created_at = created;
    issue.is_pr = is_pr;
    if is_pr {
        issue.title = format!("PR {number}");
    }
    // The history: a discussion with its mentions, labels put on and off, all before the
    // item went quiet. An item of a long timeline has 120 to 400 such entries.
    let entries = if long {
        rng.between(120, 400)
    } else {
        rng.between(0, 12)
    };
    let span = (quiet_since - created).num_seconds().max(1) as u64;
    let mut history: Vec<(DateTime<Utc>, Entry)> = (0..entries)
        .map(|_| {
            let at = created + Duration::seconds(rng.between(0, span - 1) as i64);
            let entry = match rng.next() % 10 {
                0..=5 => Entry::Comment(rng.pick(PEOPLE)),
                6 => Entry::Event("mentioned", None, rng.pick(PEOPLE)),
                7 => Entry::Event("subscribed", None, rng.pick(PEOPLE)),
                8 => Entry::Event("labeled", Some(rng.pick(LABELS)), rng.pick(MAINTAINERS)),
                _ => Entry::Event("referenced", None, rng.pick(PEOPLE)),
            };
            (at, entry)
        })
        .collect();
    history.sort_by_key(|(at, _)| *at);
    // The last entry of the history is the quiet point itself: a person's comment.
    history.push((quiet_since, Entry::Comment(rng.pick(PEOPLE))));
    let mut tail: Vec<(DateTime<Utc>, Entry)> = Vec::new();
    if let Some(labelled) = label_at {
        tail.push((labelled, Entry::Event("labeled", Some("Stale"), STALE_BOT)));
        let since = (now - labelled).num_seconds().max(2) as u64;
        match kind {
            Archetype::BotCommented => {
                for _ in 0..rng.between(1, 3) {
                    let at = labelled + Duration::seconds(rng.between(1, since - 1) as i64);
                    tail.push((at, Entry::Comment(rng.pick(BOTS))));
                }
            }
            Archetype::Unstaled => {
                let at = labelled + Duration::seconds(rng.between(1, since - 1) as i64);
                tail.push((at, Entry::Comment(rng.pick(PEOPLE))));
            }
            _ => {}
        }
        tail.sort_by_key(|(at, _)| *at);
    }
    for _ in 0..history.len() + tail.len() {
        ids.push(world.next_id());
    }
    let issue = world.issues.last_mut().expect("the item just opened");
    if kind == Archetype::Exempt {
        issue.labels.push(EXEMPT_LABEL.into());
    }
    let mut built = Built {
        comments: 0,
        events: 0,
    };
    for ((at, entry), id) in history.into_iter().chain(tail).zip(ids) {
        record(issue, at, entry, id, &mut built);
    }
    built
}

enum Entry {
    Comment(&'static str),
    /// An issue event: its REST name, its label, its actor.
    Event(&'static str, Option<&'static str>, &'static str),
}

/// Puts one entry in the item's history, as GitHub would: a label event puts the label on,
/// every entry moves `updated_at`.
fn record(issue: &mut Issue, at: DateTime<Utc>, entry: Entry, id: u64, built: &mut Built) {
    match entry {
        Entry::Comment(user) => {
            built.comments += 1;
            issue.comments.push(Comment {
                id,
                user: user.into(),
                body: format!("A comment by {user}."),
                at,
            });
        }
        Entry::Event(name, label, actor) => {
            built.events += 1;
            if let (Some(label), "labeled") = (label, name) {
                if !issue.labels.iter().any(|have| have == label) {
                    issue.labels.push(label.into());
                }
            }
            issue.events.push(Event {
                name: name.into(),
                label: label.map(str::to_string),
                actor: actor.into(),
                at,
            });
        }
    }
    issue.updated_at = at;
}

/// The verdicts a pool should get, counted from its archetypes (with the default days: the
/// stale-labelled and bot-commented whose label is older than 7 days close).
pub fn expected(census: &Census) -> String {
    let count = |kind: Archetype| {
        census.by_archetype[Archetype::ALL.iter().position(|k| *k == kind).unwrap()]
    };
    format!(
        "{} to mark, {} stale-labelled or bot-commented (to close or wait), {} to un-stale, {} exempt, {} fresh",
        count(Archetype::Idle),
        count(Archetype::StaleLabelled) + count(Archetype::BotCommented),
        count(Archetype::Unstaled),
        count(Archetype::Exempt),
        count(Archetype::Fresh)
    )
}
