//! Use case: people verify a film's latest graph build (`moviegraph graph
//! review --serve`, and the figures `graph stats` and `graph review
//! --decisions` print). A [`ReviewApp`] holds the store's writer lock for as
//! long as it is open; every decision is one transaction (the rule that turns
//! decisions into the verified graph is [`crate::graph::review::resolve`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::align::Block;
use crate::graph::review::{kind_of, sentence, Decision, Verdict};
use crate::graph::review_store::{Original, ReviewStore};
use crate::graph::schema::{
    Attitude, Candidate, Edge, EdgeFamily, EdgeKind, Evidence, Item, Node, NodeKind, Status, Vote,
};
use crate::graph::store::GraphStore;
use crate::screenplay::Screenplay;
use crate::store::{GraphBuildId, Store};
use crate::util::report::Reporter;

use super::align::film_blocks;
use super::film::FilmFolder;
use super::graph::{build_settings, latest_build};
use super::keyframes::{KeyframeRefusal, Keyframes};
use super::lock::{Wait, WriterLock};
use super::review_figures::{
    decisions_text, original_status, review_summary, reviewable, ReviewSummary,
};
use super::{bail, Result};

/// Which candidates a reviewer works through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Queue {
    /// Those the auditors disagreed on.
    Escalated,
    /// Everything proposed in one scene (1-based).
    Scene(usize),
    /// Every candidate of one kind (an attitude, or `node:event`, `edge:causes`…).
    Kind(String),
    /// A random sample of the accepted mental states, ToM edges and causal
    /// links (the precision estimate's), drawn by the seed.
    Sample {
        /// How many.
        size: usize,
        /// The draw.
        seed: u64,
    },
}

impl Queue {
    /// `escalated`, `scene:3`, `kind:belief`, `sample:50` or `sample:50:7`.
    pub fn parse(s: &str) -> Option<Queue> {
        // A kind may hold a colon itself (`kind:edge:causes`).
        if let Some(k) = s.strip_prefix("kind:") {
            return (!k.is_empty()).then(|| Queue::Kind(k.to_owned()));
        }
        let mut parts = s.split(':');
        match (parts.next()?, parts.next(), parts.next()) {
            ("escalated", None, None) => Some(Queue::Escalated),
            ("scene", Some(n), None) => n.parse().ok().filter(|&n| n > 0).map(Queue::Scene),
            ("sample", Some(n), seed) => Some(Queue::Sample {
                size: n.parse().ok().filter(|&n| n > 0)?,
                seed: seed.map_or(Some(0), |s| s.parse().ok())?,
            }),
            _ => None,
        }
    }

    /// The form [`Queue::parse`] reads; decisions record it.
    pub fn name(&self) -> String {
        match self {
            Queue::Escalated => "escalated".to_owned(),
            Queue::Scene(n) => format!("scene:{n}"),
            Queue::Kind(k) => format!("kind:{k}"),
            Queue::Sample { size, seed } => format!("sample:{size}:{seed}"),
        }
    }
}

/// One line of a scene as the review page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SceneLine {
    /// The element's index in the script.
    pub element: usize,
    /// Its kind (`dialogue`, `action`…).
    pub kind: String,
    /// Who speaks it, for dialogue.
    pub speaker: Option<String>,
    /// Its text.
    pub text: String,
    /// The evidence quote's characters in it, when it holds one.
    pub highlight: Option<(usize, usize)>,
}

/// A candidate as a reviewer sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CandidateView {
    /// The candidate id.
    pub id: String,
    /// It as a sentence.
    pub sentence: String,
    /// What agreement is measured by (attitude or kind).
    pub kind: String,
    /// Why the generator proposed it.
    pub reason: String,
    /// Where it stands now.
    pub status: Status,
    /// Its scene, 1-based.
    pub scene: usize,
    /// The scene's lines, with the evidence highlighted.
    pub lines: Vec<SceneLine>,
    /// The block's keyframes (paths relative to the workspace).
    pub keyframes: Vec<String>,
    /// The auditors', adjudicator's and people's votes.
    pub votes: Vec<Vote>,
    /// The mental state's fields, for the correction form.
    pub state: Option<Node>,
    /// A higher-order `about` edge: its state and what it is about now (node
    /// ids), for the correction form.
    pub about: Option<(String, String)>,
}

/// A causal link a reviewer adds between two accepted events or mental
/// states, with its evidence selected in the scene.
#[derive(Debug, Clone, PartialEq)]
pub struct NewLink {
    /// The cause's node id.
    pub cause: String,
    /// The effect's node id.
    pub effect: String,
    /// `causes`, `enables`, `prevents`, `motivates` or `triggers`.
    pub kind: EdgeKind,
    /// The element holding the quote.
    pub element: usize,
    /// The quote's first character in it.
    pub start: usize,
    /// One past its last character.
    pub end: usize,
}

/// A mental state a reviewer adds, with its evidence selected in the scene.
#[derive(Debug, Clone, PartialEq)]
pub struct NewState {
    /// The holder's character node id.
    pub holder: String,
    /// The attitude.
    pub attitude: Attitude,
    /// What is held.
    pub content: String,
    /// The holder holds its negation.
    pub negated: bool,
    /// Its truth value, if known.
    pub truth: Option<bool>,
    /// The element holding the quote.
    pub element: usize,
    /// The quote's first character in it.
    pub start: usize,
    /// One past its last character.
    pub end: usize,
}

/// A film's latest graph build open for review.
pub struct ReviewApp {
    _lock: WriterLock,
    store: Store,
    build: GraphBuildId,
    /// The film's name.
    pub slug: String,
    /// The generator of the build.
    pub generator: String,
    play: Screenplay,
    blocks: Vec<Block>,
    /// How many people see each candidate.
    pub overlap: usize,
    /// The workspace root, which keyframe paths are relative to.
    root: std::path::PathBuf,
    /// Who was last shown each candidate and when: a candidate on someone's
    /// screen goes to others only when nothing else is left.
    leases: std::sync::Mutex<BTreeMap<String, Vec<(String, std::time::Instant)>>>,
}

/// How long a candidate shown to a reviewer stays theirs.
pub const LEASE: std::time::Duration = std::time::Duration::from_secs(10 * 60);

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

impl ReviewApp {
    /// Opens the latest build of the film at `film_dir`, holding the store's
    /// writer lock until dropped; each candidate goes to `overlap` people.
    pub fn open(
        film_dir: &Path,
        store_path: &Path,
        root: &Path,
        overlap: usize,
        wait: Wait,
        reporter: &dyn Reporter,
    ) -> Result<ReviewApp> {
        if overlap == 0 {
            bail!("--overlap must be at least 1 (how many people see each candidate)");
        }
        let folder = FilmFolder::open(film_dir)?;
        let lock = WriterLock::acquire(store_path, "moviegraph graph review", wait, reporter)?;
        let store = Store::open(store_path)?;
        let (build, settings) = latest_build(&store, &folder.slug)?;
        let (play, blocks, _) = film_blocks(&store, &folder, None)?;
        let generator =
            build_settings(&settings).map_or_else(|| "unknown".to_owned(), |s| s.generator);
        Ok(ReviewApp {
            _lock: lock,
            store,
            build,
            slug: folder.slug,
            generator,
            play,
            blocks,
            overlap,
            root: root.to_path_buf(),
            leases: std::sync::Mutex::new(BTreeMap::new()),
        })
    }

    fn candidates(&self) -> Result<Vec<Candidate>> {
        Ok(self.store.graph_candidates(self.build)?)
    }

    /// The film's characters: (node id, name), by name.
    pub fn characters(&self) -> Result<Vec<(String, String)>> {
        let mut out: Vec<(String, String)> = self
            .candidates()?
            .into_iter()
            .filter_map(|c| match c.item {
                Item::Node(n) if n.kind == NodeKind::Character && c.status == Status::Accepted => {
                    Some((n.id, n.name))
                }
                _ => None,
            })
            .collect();
        out.sort_by(|a, b| a.1.cmp(&b.1));
        out.dedup_by(|a, b| a.0 == b.0);
        Ok(out)
    }

    fn scene_of(&self, c: &Candidate) -> usize {
        match &c.item {
            Item::Node(n) if n.scene.is_some() => n.scene.unwrap_or(0),
            _ => self
                .blocks
                .iter()
                .find(|b| b.id == c.block)
                .map_or(0, |b| b.scene),
        }
    }

    /// The scenes, 1-based, as (number, heading).
    pub fn scenes(&self) -> Vec<(usize, String)> {
        let mut seen = BTreeSet::new();
        self.blocks
            .iter()
            .filter(|b| seen.insert(b.scene))
            .map(|b| {
                let heading = self.play.elements[b.elements[0]..=b.elements[1]]
                    .iter()
                    .find(|e| e.kind.as_str() == "scene_heading")
                    .map_or_else(String::new, |e| e.text.clone());
                (b.scene + 1, heading)
            })
            .collect()
    }

    /// The lines of scene `scene` (1-based), with `evidence` highlighted.
    pub fn scene_lines(&self, scene: usize, evidence: &[Evidence]) -> Vec<SceneLine> {
        let mut out = Vec::new();
        for b in self.blocks.iter().filter(|b| b.scene + 1 == scene) {
            for i in b.elements[0]..=b.elements[1] {
                let Some(e) = self.play.elements.get(i) else {
                    continue;
                };
                if out.iter().any(|l: &SceneLine| l.element == i) {
                    continue;
                }
                out.push(SceneLine {
                    element: i,
                    kind: e.kind.as_str().to_owned(),
                    speaker: e.speaker.clone(),
                    text: e.text.clone(),
                    highlight: evidence
                        .iter()
                        .find(|ev| ev.element == i)
                        .map(|ev| (ev.start, ev.end)),
                });
            }
        }
        out
    }

    fn view_of(&self, c: &Candidate, names: &BTreeMap<String, String>) -> CandidateView {
        let name = |id: &str| names.get(id).cloned().unwrap_or_else(|| id.to_owned());
        let scene = self.scene_of(c) + 1;
        CandidateView {
            id: c.id.clone(),
            sentence: sentence(&c.item, &name),
            kind: kind_of(&c.item),
            reason: c.reason.clone(),
            status: c.status,
            scene,
            lines: self.scene_lines(scene, c.item.evidence()),
            keyframes: c
                .item
                .evidence()
                .iter()
                .flat_map(|e| e.keyframes.clone())
                .collect(),
            votes: c.votes.clone(),
            state: match &c.item {
                Item::Node(n) if n.kind == NodeKind::MentalState => Some(n.clone()),
                _ => None,
            },
            about: match &c.item {
                Item::Edge(e) if e.kind == EdgeKind::About => {
                    Some((e.source.clone(), e.target.clone()))
                }
                _ => None,
            },
        }
    }

    fn names(candidates: &[Candidate]) -> BTreeMap<String, String> {
        candidates
            .iter()
            .filter_map(|c| match &c.item {
                Item::Node(n) => Some((n.id.clone(), n.name.clone())),
                Item::Edge(_) => None,
            })
            .collect()
    }

    /// The candidate `id` as a reviewer sees it.
    pub fn view(&self, id: &str) -> Result<CandidateView> {
        let all = self.candidates()?;
        let names = Self::names(&all);
        match all.iter().find(|c| c.id == id) {
            Some(c) => Ok(self.view_of(c, &names)),
            None => bail!("{id}: no such candidate in film {}", self.slug),
        }
    }

    /// What `reviewer` has left in `queue`, first the next one to show.
    pub fn remaining(&self, reviewer: &str, queue: &Queue) -> Result<Vec<CandidateView>> {
        let all = self.candidates()?;
        let names = Self::names(&all);
        let before = self.store.review_before(self.build)?;
        let mut people: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
        let decisions = self.store.review_all(self.build)?;
        for (_, d) in &decisions {
            people
                .entry(d.candidate.as_str())
                .or_default()
                .insert(d.reviewer.clone());
        }
        let sample = sample_ids(&all, &before, queue);
        let mut out = Vec::new();
        for c in all.iter().filter(|c| reviewable(c)) {
            let original = original_status(c, &before);
            let in_queue = match queue {
                Queue::Escalated => original == Some(Status::Escalated),
                Queue::Scene(s) => self.scene_of(c) + 1 == *s,
                Queue::Kind(k) => &kind_of(&c.item) == k,
                Queue::Sample { .. } => sample.contains(c.id.as_str()),
            };
            let who = people.get(c.id.as_str());
            let count = who.map_or(0, BTreeSet::len);
            let needs = count < self.overlap || (count > 0 && c.status == Status::Escalated);
            if in_queue && needs && !who.is_some_and(|w| w.contains(reviewer)) {
                out.push(self.view_of(c, &names));
            }
        }
        Ok(out)
    }

    /// The next candidate to show `reviewer` in `queue` (none in `skip`), and
    /// how many are left. A candidate shown to as many others as it still
    /// needs people (within [`LEASE`]) comes only after every other, so that
    /// reviewers working at once do not all get the same one.
    pub fn take_next(
        &self,
        reviewer: &str,
        queue: &Queue,
        skip: &[&str],
    ) -> Result<(Option<CandidateView>, usize)> {
        let left: Vec<CandidateView> = self
            .remaining(reviewer, queue)?
            .into_iter()
            .filter(|c| !skip.contains(&c.id.as_str()))
            .collect();
        let people = self.people()?;
        let now = std::time::Instant::now();
        let mut leases = self
            .leases
            .lock()
            .map_err(|_| super::Error::msg("a review page failed while holding the leases"))?;
        let busy = |c: &CandidateView| {
            let who = people.get(&c.id);
            let decided = who.map_or(0, BTreeSet::len);
            // Shown to others who have not decided it yet.
            let shown = leases.get(&c.id).map_or(0, |l| {
                l.iter()
                    .filter(|(r, at)| {
                        r != reviewer
                            && now.duration_since(*at) < LEASE
                            && !who.is_some_and(|w| w.contains(r))
                    })
                    .count()
            });
            decided + shown >= self.overlap
        };
        let pick =
            left.iter()
                .position(|c| !busy(c))
                .or(if left.is_empty() { None } else { Some(0) });
        let n = left.len();
        let chosen = pick.map(|i| left[i].clone());
        if let Some(c) = &chosen {
            let l = leases.entry(c.id.clone()).or_default();
            l.retain(|(r, at)| r != reviewer && now.duration_since(*at) < LEASE);
            l.push((reviewer.to_owned(), now));
        }
        Ok((chosen, n))
    }

    /// Who decided each candidate.
    fn people(&self) -> Result<BTreeMap<String, BTreeSet<String>>> {
        let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (_, d) in self.store.review_all(self.build)? {
            out.entry(d.candidate).or_default().insert(d.reviewer);
        }
        Ok(out)
    }

    /// Records `reviewer`'s `verdict` on `candidate` from `queue`; false when
    /// the page's `nonce` was recorded already (the form was sent twice).
    pub fn decide(
        &self,
        reviewer: &str,
        nonce: &str,
        candidate: &str,
        queue: &str,
        verdict: Verdict,
    ) -> Result<bool> {
        check_reviewer(reviewer)?;
        let all = self.candidates()?;
        let Some(c) = all.iter().find(|c| c.id == candidate) else {
            bail!("{candidate}: no such candidate in film {}", self.slug);
        };
        if let Verdict::Correct { correction } = &verdict {
            if let Some(about) = &correction.about {
                let Item::Edge(e) = &c.item else {
                    bail!("{candidate} is no higher-order `about` edge: only those take `about`");
                };
                if e.kind != EdgeKind::About {
                    bail!("{candidate} is no higher-order `about` edge: only those take `about`");
                }
                if about == &e.target {
                    bail!("{candidate} is already about {about}: accept it instead");
                }
                let known = all.iter().any(
                    |o| matches!(&o.item, Item::Node(n) if &n.id == about && n.id != e.source),
                );
                if !known {
                    bail!("{about}: no other node of film {} to be about", self.slug);
                }
            }
            if correction.is_empty() {
                bail!("a correction must change something (holder, attitude, polarity, truth, content, scenes, or what a higher-order state is about)");
            }
        }
        let decision = Decision {
            candidate: candidate.to_owned(),
            reviewer: reviewer.to_owned(),
            at_ms: now_ms(),
            queue: queue.to_owned(),
            verdict,
        };
        Ok(self.store.review_record(self.build, nonce, &decision)?)
    }

    /// The quote a reviewer selected: its block and its evidence.
    fn quote_at(
        &self,
        element: usize,
        start: usize,
        end: usize,
    ) -> Result<(usize, usize, Evidence)> {
        let Some(line) = self.play.elements.get(element) else {
            bail!("element {element} is not in the script");
        };
        let chars: Vec<char> = line.text.chars().collect();
        if start >= end || end > chars.len() {
            bail!(
                "select the quote inside one line of the scene (characters {start}..{end} of a {}-character line)",
                chars.len()
            );
        }
        let Some(block) = self
            .blocks
            .iter()
            .find(|b| (b.elements[0]..=b.elements[1]).contains(&element))
        else {
            bail!("element {element} is in no block of the film");
        };
        let evidence = Evidence {
            block: block.id,
            element,
            start,
            end,
            quote: chars[start..end].iter().collect(),
            keyframes: Vec::new(),
        };
        Ok((block.id, block.scene, evidence))
    }

    /// Stores `item`, which `reviewer` added in `block`, accepted by them;
    /// returns its candidate id.
    fn store_added(&self, reviewer: &str, nonce: &str, item: Item, block: usize) -> Result<String> {
        let id = Candidate::make_id(item.id(), block);
        let candidate = Candidate {
            id: id.clone(),
            block,
            item,
            reason: format!("added by {reviewer}"),
            status: Status::Accepted,
            votes: Vec::new(),
        };
        let decision = Decision {
            candidate: id.clone(),
            reviewer: reviewer.to_owned(),
            at_ms: now_ms(),
            queue: "add".to_owned(),
            verdict: Verdict::Accept,
        };
        self.store
            .review_add_candidates(self.build, &[(candidate, nonce.to_owned(), decision)])?;
        Ok(id)
    }

    /// Adds the state `new` that `reviewer` found, with its quote as evidence;
    /// returns its candidate id (the same for the same `nonce`).
    pub fn add_state(&self, reviewer: &str, nonce: &str, new: &NewState) -> Result<String> {
        check_reviewer(reviewer)?;
        let (block, scene, evidence) = self.quote_at(new.element, new.start, new.end)?;
        if new.content.trim().is_empty() {
            bail!("say what is held (the content)");
        }
        if !self.characters()?.iter().any(|(id, _)| id == &new.holder) {
            bail!("{}: not a character of film {}", new.holder, self.slug);
        }
        let short: String = nonce
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(12)
            .collect();
        let mut n = Node::new(
            format!("mental_state:added-{short}"),
            NodeKind::MentalState,
            new.content.trim(),
        );
        n.attitude = Some(new.attitude);
        n.holder = Some(new.holder.clone());
        n.content = Some(new.content.trim().to_owned());
        n.negated = new.negated;
        n.truth = new.truth;
        n.explicit = Some(true);
        n.order = Some(new.element);
        n.scene = Some(scene);
        n.blocks = vec![block];
        n.evidence = vec![evidence];
        self.store_added(reviewer, nonce, Item::Node(n), block)
    }

    /// What a causal link may join: the accepted events and mental states, as
    /// (node id, `scene N: sentence`), in story order.
    pub fn link_ends(&self) -> Result<Vec<(String, String)>> {
        let all = self.candidates()?;
        let names = Self::names(&all);
        let name = |id: &str| names.get(id).cloned().unwrap_or_else(|| id.to_owned());
        let mut out: Vec<(usize, String, String)> = all
            .iter()
            .filter(|c| c.status == Status::Accepted)
            .filter_map(|c| match &c.item {
                Item::Node(n) if matches!(n.kind, NodeKind::Event | NodeKind::MentalState) => {
                    Some((
                        n.scene.unwrap_or(0),
                        n.id.clone(),
                        format!(
                            "scene {}: {}",
                            n.scene.unwrap_or(0) + 1,
                            sentence(&c.item, &name)
                        ),
                    ))
                }
                _ => None,
            })
            .collect();
        out.sort();
        out.dedup_by(|a, b| a.1 == b.1);
        Ok(out.into_iter().map(|(_, id, label)| (id, label)).collect())
    }

    /// Adds the causal link `new` that `reviewer` found, with its quote as
    /// evidence; returns its candidate id (the same for the same `nonce`).
    pub fn add_link(&self, reviewer: &str, nonce: &str, new: &NewLink) -> Result<String> {
        check_reviewer(reviewer)?;
        let (block, _, evidence) = self.quote_at(new.element, new.start, new.end)?;
        if !new.kind.claims_cause() {
            bail!(
                "{}: not a causal link (causes, enables, prevents, motivates, triggers)",
                new.kind.as_str()
            );
        }
        if new.cause == new.effect {
            bail!("a causal link joins two different things");
        }
        let ends = self.link_ends()?;
        for end in [&new.cause, &new.effect] {
            if !ends.iter().any(|(id, _)| id == end) {
                bail!(
                    "{end}: not an accepted event or mental state of film {}",
                    self.slug
                );
            }
        }
        let mut e = Edge::new(new.kind, &new.cause, &new.effect);
        e.blocks = vec![block];
        e.evidence = vec![evidence];
        self.store_added(reviewer, nonce, Item::Edge(e), block)
    }

    /// Progress, agreement and precision of the review so far.
    pub fn summary(&self) -> Result<ReviewSummary> {
        review_summary(&self.store, self.build, &self.slug, &self.generator)
    }

    /// The image file behind a keyframe path a candidate's evidence names,
    /// and its content type; anything else is refused.
    pub fn keyframe(
        &self,
        path: &str,
    ) -> Result<std::result::Result<(std::path::PathBuf, &'static str), KeyframeRefusal>> {
        let candidates = self.candidates()?;
        let paths = candidates
            .iter()
            .flat_map(|c| c.item.evidence())
            .flat_map(|e| e.keyframes.iter().map(String::as_str));
        Ok(Keyframes::of_film(&self.root, &self.slug, paths).resolve(path))
    }

    /// Every decision as CSV (`csv`) or JSON lines.
    pub fn decisions(&self, csv: bool) -> Result<String> {
        decisions_text(&self.store.review_all(self.build)?, csv)
    }
}

fn check_reviewer(reviewer: &str) -> Result<()> {
    if reviewer.trim().is_empty() || reviewer.len() > 64 || reviewer.chars().any(char::is_control) {
        bail!("a reviewer's name is 1-64 printable characters");
    }
    Ok(())
}

/// The sample queue's candidates: accepted by the models, drawn by the seed.
/// What a Theory-of-Mind graph claims, and its sample estimates the precision
/// of: mental states, the ToM edges between minds and characters (`about`,
/// `perceives`, `reveals`, `conceals`) and causal links (not `holds`, which
/// follows its state, nor characters, objects, places, events or context edges).
fn is_claim(c: &Candidate) -> bool {
    match &c.item {
        Item::Node(n) => n.kind == NodeKind::MentalState,
        Item::Edge(e) => {
            e.kind.claims_cause()
                || (e.kind.family() == EdgeFamily::Tom && e.kind != EdgeKind::Holds)
        }
    }
}

fn sample_ids<'a>(
    all: &'a [Candidate],
    before: &BTreeMap<String, Original>,
    queue: &Queue,
) -> BTreeSet<&'a str> {
    let Queue::Sample { size, seed } = queue else {
        return BTreeSet::new();
    };
    let mut drawn: Vec<([u8; 32], &str)> = all
        .iter()
        .filter(|c| is_claim(c) && original_status(c, before) == Some(Status::Accepted))
        .map(|c| {
            (
                Sha256::digest(format!("{seed}:{}", c.id)).into(),
                c.id.as_str(),
            )
        })
        .collect();
    drawn.sort();
    drawn.into_iter().take(*size).map(|(_, id)| id).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queues_read_and_write_their_names() {
        for q in [
            "escalated",
            "scene:3",
            "kind:belief",
            "kind:edge:causes",
            "kind:node:event",
            "sample:50:7",
        ] {
            assert_eq!(Queue::parse(q).unwrap().name(), q);
        }
        assert_eq!(
            Queue::parse("sample:20"),
            Some(Queue::Sample { size: 20, seed: 0 })
        );
        for bad in ["", "scene:0", "scene:x", "kind:", "sample:0", "everything"] {
            assert_eq!(Queue::parse(bad), None, "{bad}");
        }
    }
}
