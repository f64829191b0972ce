//! Mental-state clauses: `<subject> [not] <mental verb> <content>`, one per
//! clause of a sentence.
//!
//! - Polarity: a negation between subject and verb sets `negated` on the
//!   state; the content stays as written ("doesn't know X" is knowledge of
//!   X, negated), never inverted into a false belief.
//! - Holders: in narration the subject (a name, or a pronoun's latest
//!   character); in a line `I` is the speaker. A line saying that a
//!   character knows or does not know something ("Anna never knew I took
//!   the key") gives that character's knowledge, as the speaker reports it
//!   (its own rule family); any other report of a mind ("He thinks I don't
//!   know") is the speaker's belief with the whole clause as content: a line
//!   reports a mind, it does not open it. A content that still opens on a
//!   he/she nobody fits is not emitted.
//! - False beliefs only where the script shows them: believing a character
//!   whose latest line was marked `(lying)`, `mistakes X for Y`, and a
//!   narrated belief set against the sentence beside it (dramatic irony:
//!   "He thinks she means the key. She means the money.").
//! - Higher order: a narrated `knows` whose content is itself a mental
//!   clause asserts that inner state; a state about someone lying is about
//!   that character's latest pretense; a narrated belief about the mind of a
//!   character who pretends in the block is about that pretense.
//! - Content that is only a pronoun (`He doesn't believe it`, `I know.`) is
//!   what was said or shown just before; a state with no content word is not
//!   proposed.

use super::contents::{
    clause_text, has_content, is_anaphor, points_back, trim_clause, with_elided,
};
use super::ellipsis;
use super::lexicon::{is_negation, mental_cue, ADVERBS, COPULAS, DEGREE_WORDS, VERB_AUXILIARIES};
use super::{Extractor, MentalRec};
use crate::graph::generate::cast::pronoun_gender;
use crate::graph::schema::*;
use crate::text::spans::words;
use crate::text::spans::{char_slice, gloss, sentences, Span};

/// Where a sentence stands: its element, who speaks it (none in narration)
/// and to whom.
#[derive(Clone, Copy)]
pub(super) struct Voice<'v> {
    pub speaker: Option<&'v str>,
    pub addressee: Option<&'v str>,
    /// A voice-over that narrates (see [`super::Extractor::narrating`]):
    /// what it says of another's mind is that mind, as narration says it.
    pub narrating: bool,
}

impl Voice<'_> {
    fn narrated(&self) -> bool {
        self.speaker.is_none()
    }
}

/// A state found in a clause, before it becomes a node.
struct Found {
    holder: String,
    /// A line's report of another's mind, held as the speaker's belief.
    speakers_report: bool,
    attitude: Attitude,
    negated: bool,
    truth: Option<bool>,
    content: String,
    about: Option<String>,
    /// First word of the clause the evidence quotes.
    from: usize,
    /// One past its last word.
    to: usize,
    verb: usize,
    /// What the node's name says after its holder when the clause alone
    /// does not read right (an elided phrase, a realization told by a line).
    wording: Option<String>,
    /// The content is what was said or shown just before (`I know.`, `He
    /// doesn't believe it.`): its own rule family, as reading a pointer is
    /// a guess of its own.
    pointed_back: bool,
}

/// The attitude family a cue's attitude belongs to.
fn attitude_family_of(a: Attitude) -> &'static str {
    a.family()
}

/// Word ranges of a sentence's clauses: a new clause starts after `;`, and
/// after a comma before `and`, `but`, `or`, `yet`.
pub(super) fn clauses(s: &Span, ws: &[Span], lower: &[String]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut a = 0;
    for w in 1..ws.len() {
        let gap = char_slice(&s.text, ws[w - 1].end - s.start, ws[w].start - s.start);
        let joins = matches!(lower[w].as_str(), "and" | "but" | "or" | "yet");
        if gap.contains(';') || (gap.contains(',') && joins) {
            out.push((a, w));
            a = w;
        }
    }
    out.push((a, ws.len()));
    out
}

impl Extractor<'_, '_> {
    /// Proposes the mental states of a sentence's clauses; returns (verb
    /// position, id) for each.
    pub(super) fn mental_states(
        &mut self,
        i: usize,
        s: &Span,
        ws: &[Span],
        lower: &[String],
        voice: Voice<'_>,
    ) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        // A question asserts nothing about anyone's mind; a recording
        // addresses no one in the scene.
        if s.text.trim_end().ends_with('?') || (!voice.narrated() && self.recorded) {
            return out;
        }
        let mut previous: Option<(String, String)> = None;
        for (a, b) in clauses(s, ws, lower) {
            let Some(found) = self.clause_state(i, s, ws, lower, voice, a, b, &previous) else {
                continue;
            };
            previous = Some((
                found.holder.clone(),
                clause_text(s, ws, found.verb, found.to),
            ));
            let verb = found.verb;
            let mut inner_id = None;
            // A narrated `knows` asserts the mental clause it contains.
            if voice.narrated() && found.attitude == Attitude::Knowledge && !found.negated {
                if let Some(inner) = self.clause_state(i, s, ws, lower, voice, verb + 1, b, &None) {
                    inner_id = Some(self.propose(i, s, ws, inner, voice));
                }
            }
            let mut found = found;
            if let Some(id) = inner_id.clone() {
                found.about = Some(id);
            }
            let id = self.propose(i, s, ws, found, voice);
            out.push((verb, id));
            if let Some(inner) = inner_id {
                out.push((verb, inner));
            }
        }
        if voice.narrated() || voice.narrating {
            self.mark_mistaken(i, s, ws, lower, voice, &out);
        }
        out
    }

    /// Narration that says a character is wrong (`…, and she is wrong`,
    /// `He was mistaken.`) makes that character's beliefs of the sentence
    /// false; `wrong on both counts` (`both`, `all`, `each`, `every`) reaches
    /// their beliefs of the sentence before it in the same element too.
    fn mark_mistaken(
        &mut self,
        i: usize,
        s: &Span,
        ws: &[Span],
        lower: &[String],
        voice: Voice<'_>,
        found: &[(usize, String)],
    ) {
        let Some(k) = (2..lower.len()).find(|&k| {
            matches!(lower[k].as_str(), "wrong" | "mistaken")
                && (COPULAS.contains(&lower[k - 1].as_str()) || lower[k - 1].ends_with("'s"))
        }) else {
            return;
        };
        let mut j = k - 1;
        if COPULAS.contains(&lower[j].as_str()) {
            while j > 0
                && (ADVERBS.contains(&lower[j - 1].as_str())
                    || COPULAS.contains(&lower[j - 1].as_str()))
            {
                j -= 1;
            }
            if j == 0 || is_negation(&lower[j - 1]) {
                return;
            }
            j -= 1;
        }
        let Some(who) = self.person(ws, lower, j, voice.speaker, None, &[]) else {
            return;
        };
        let all = lower[k + 1..]
            .iter()
            .any(|w| matches!(w.as_str(), "both" | "all" | "each" | "every"));
        let here: Vec<&str> = found.iter().map(|(_, id)| id.as_str()).collect();
        let before: Vec<String> = if all {
            self.mentals
                .iter()
                .filter(|m| m.order.0 == i && m.order.1 < s.start && !here.contains(&m.id.as_str()))
                .map(|m| m.id.clone())
                .collect()
        } else {
            Vec::new()
        };
        for id in here.iter().map(|s| s.to_string()).chain(before) {
            let Some(&at) = self.node_index.get(&id) else {
                continue;
            };
            if let Item::Node(n) = &mut self.items[at].0 {
                if n.holder.as_deref() == Some(who.as_str())
                    && n.attitude == Some(Attitude::Belief)
                    && n.truth.is_none()
                    && !n.negated
                {
                    n.truth = Some(false);
                }
            }
        }
    }

    /// The state a clause `[a, b)` states, if any. `previous` is the
    /// sentence's previous clause with a state: its subject (a clause opening
    /// `and pretends…` shares it) and its predicate (`pretends he doesn't`
    /// means doesn't *know she's lying*).
    #[allow(clippy::too_many_arguments)]
    fn clause_state(
        &self,
        i: usize,
        s: &Span,
        ws: &[Span],
        lower: &[String],
        voice: Voice<'_>,
        a: usize,
        b: usize,
        previous: &Option<(String, String)>,
    ) -> Option<Found> {
        let (k, cue) = (a..b).find_map(|k| Some((k, mental_cue(lower, k, b)?)))?;
        // `to see whether I noticed…`, `asks if she knows`: an embedded
        // question asserts no one's mind.
        let asks = |j: usize| {
            j > 0
                && matches!(
                    lower[j - 1].as_str(),
                    "see"
                        | "ask"
                        | "asks"
                        | "asked"
                        | "wonder"
                        | "wonders"
                        | "wondered"
                        | "check"
                        | "know"
                        | "knows"
                        | "tell"
                        | "learn"
                        | "find"
                )
        };
        if (a..k).any(|j| lower[j] == "whether" || (lower[j] == "if" && asks(j))) {
            return None;
        }
        // `He doesn't need to: he has had…`: what follows the colon is not
        // what the stranded `to` governs (unlike `realizes: Quinton will…`).
        if cue.content < b
            && cue.content > k
            && lower[cue.content - 1] == "to"
            && char_slice(
                &s.text,
                ws[cue.content - 1].end - s.start,
                ws[cue.content].start - s.start,
            )
            .contains(':')
        {
            return None;
        }
        // The subject: the word before the verb, past negations and auxiliaries.
        let mut j = k;
        let mut negated = false;
        while j > a {
            let w = lower[j - 1].as_str();
            if is_negation(w) {
                negated = true;
            } else if !(VERB_AUXILIARIES.contains(&w)
                || ADVERBS.contains(&w)
                || (cue.copular && (COPULAS.contains(&w) || DEGREE_WORDS.contains(&w))))
            {
                break;
            }
            j -= 1;
        }
        let subject = (j > a).then(|| j - 1);
        let coordinated = subject.is_some_and(|j| matches!(lower[j].as_str(), "and" | "but"));
        // `I've`, `she'd`, `you're`: the person before the contraction.
        let subject_word = subject.map(|j| lower[j].split('\'').next().unwrap_or_default());
        // Someone let or made to believe (`you let me think it was Pruitt`,
        // `Bev lets him be sure`): that person's belief, and a false one —
        // whoever lets it stand knows better.
        let let_on = subject.is_some_and(|j| {
            j > a && matches!(lower[j - 1].as_str(), "let" | "lets" | "letting" | "made" | "makes")
        }) && cue.attitude == Attitude::Belief
            // `I let you think what you already thought`: no proposition to
            // be false.
            && !lower.get(cue.content).is_some_and(|w| matches!(w.as_str(), "what" | "whatever"));
        // Otherwise an object pronoun before the verb is not its subject
        // (`we let him find out`): the clause is someone's plan for another's
        // mind, not a mind it states.
        if !let_on && matches!(subject_word, Some("him" | "her" | "me" | "them" | "us")) {
            return None;
        }
        let speaker = voice.speaker;
        // Who the clause is about, and whether it is the speaker's own mind.
        let (person, own) = match subject_word {
            Some("i") => (speaker.map(str::to_owned), true),
            Some("me") => (speaker.map(str::to_owned), true),
            Some(_) if let_on => {
                let subj = subject?;
                let addressee = voice.addressee.filter(|_| !voice.narrated());
                let exclude: Vec<&str> = speaker.into_iter().chain(addressee).collect();
                (
                    self.person(ws, lower, subj, speaker, voice.addressee, &exclude),
                    true,
                )
            }
            None if a == 0 => return None,
            // `… and mistakes it for sulking`: the clause's subject, else the
            // one the sentence opened with.
            _ if coordinated => (
                previous.clone().map(|p| p.0).or_else(|| {
                    self.person(ws, lower, 0, speaker, voice.addressee, &[])
                        .filter(|_| voice.narrated())
                }),
                true,
            ),
            None => (previous.clone().map(|p| p.0), true),
            Some(_) => {
                let subj = subject?;
                // A pronoun means someone named before it, not the object
                // the sentence names after it (`He suspects Rory now`).
                let later = self.named_only_after(ws, subj);
                // In a line, he or she is neither the speaker nor the one
                // spoken to (who would be `you`).
                let addressee = voice.addressee.filter(|_| !voice.narrated());
                let exclude: Vec<&str> = speaker
                    .into_iter()
                    .chain(addressee)
                    .chain(later.iter().map(String::as_str))
                    .collect();
                (
                    self.person(ws, lower, subj, speaker, voice.addressee, &exclude),
                    voice.narrated()
                        || (voice.narrating
                            && !matches!(subject_word, Some("you" | "we" | "they"))),
                )
            }
        };
        if cue.witnessed && (subject_word != Some("i") || voice.narrated()) {
            return None;
        }
        let person = match person {
            Some(p) => p,
            // A line's report of someone no character of the block is (the
            // dead father's "And he knew I would"): still the speaker's
            // belief, though one whose content opens on that he is not
            // emitted (see `contents::readable`).
            None if !own
                && speaker.is_some()
                && matches!(subject_word, Some("he" | "she" | "they")) =>
            {
                String::new()
            }
            None => return None,
        };
        // A coordinated verb's quote keeps the clause's opening, where its
        // subject is (`She looks at the ring … and realizes: …`).
        let from = match (coordinated, previous) {
            // `Quinton sees the ring …, and realizes`: the subject opens the
            // sentence, and the quote must reach it.
            (true, None) => 0,
            (true, Some(_)) => a,
            (false, _) => subject.unwrap_or(a),
        };
        let c = cue.content;
        let mut content = if c < b {
            clause_text(s, ws, c, b)
        } else {
            String::new()
        };
        // A narrated verb with nothing after it (`Quinton sees the ring on
        // her finger, and realizes.`) is told by the holder's own next line
        // (`You took it out.`); with no such line, the picture keeps it.
        let mut told = None;
        if c >= b && voice.narrated() {
            if cue.attitude != Attitude::Knowledge {
                return None;
            }
            // Whom the line answers: the one the sentence looks at (`the ring
            // on her finger`), else the line's own addressee.
            let looked_at = (0..b).find_map(|w| {
                self.person(ws, lower, w, None, None, &[&person])
                    .filter(|p| p != &person)
            });
            let (spelled, said) = self.next_line_of(i, &person, looked_at)?;
            content = spelled;
            told = Some(said);
        }
        // `She doesn't know what it means`: what was just shown means (past
        // a `June sees it.` that only points at it too).
        if points_back(&content) {
            if let Some(shown) = self.shown_before(i, s) {
                content = format!("what {shown} means");
            }
        }
        let mut pointed_back = false;
        if is_anaphor(&content) {
            // `He doesn't believe it`, `I know.`: what was just said or shown.
            // A line's `She knows.` of another's mind says what she knows
            // nowhere the words reach.
            if matches!(cue.attitude, Attitude::Belief | Attitude::Knowledge)
                && !cue.mistaken
                && own
            {
                content = self.antecedent(i, s).unwrap_or_default();
                pointed_back = true;
            } else {
                content.clear();
            }
        }
        // Believing a liar (`Mara believes him`): the lie's words are the
        // content, and the belief is false.
        let mut liar_belief = None;
        if own && cue.attitude == Attitude::Belief && !cue.mistaken && !negated && b - c <= 2 {
            let believed = (c..b).find_map(|w| {
                self.person(ws, lower, w, speaker, voice.addressee, &[&person])
                    .filter(|p| p != &person)
            });
            if let Some((liar, (_, lie))) =
                believed.and_then(|l| self.lies.get(&l).map(|x| (l.clone(), x.clone())))
            {
                content = lie;
                liar_belief = Some(liar);
            }
        }
        // A clause that stops at its auxiliary (`pretends he doesn't`, `Teo
        // suspects he didn't`, `And he knew I would`) means the verb phrase
        // of a clause before it.
        let mut elided = None;
        if c < b {
            if let Some(aux) = ellipsis::ends_elided(&lower[c..b]) {
                elided = self.elided(i, s, ws, lower, c, voice, previous, aux);
                if let Some((subject, phrase)) = &elided {
                    content = with_elided(&content, subject.as_deref(), phrase);
                }
            }
        }
        if !has_content(&content) {
            return None;
        }
        // A line's report that someone named, or a he or she one character
        // fits, knows or does not know something ("She never knew I took
        // the key") is their knowledge as the speaker, who knows the fact,
        // reports it. Any other report of a mind ("He wanted to read the
        // entries", "you don't know him as well as you think") is the
        // speaker's belief, perhaps mistaken, with the whole clause as
        // content: a line reports a mind, it does not open it.
        let reported_knowledge = cue.attitude == Attitude::Knowledge
            && !person.is_empty()
            && subject_word != Some("you");
        if !own && !reported_knowledge {
            // What a line says the one spoken to wants, needs or feels
            // (`you'll want it worse than you want it tonight`, `you're not
            // desperate yet`) is persuasion or prophecy more than a reading
            // of their mind; what it says they know or think is a charge the
            // speaker stands by (`You knew it was Del`).
            if subject_word == Some("you") && attitude_family_of(cue.attitude) != "belief" {
                return None;
            }
            let mut report = clause_text(s, ws, from, b);
            if let Some((_, phrase)) = &elided {
                report = format!("{report} {phrase}");
            }
            return Some(Found {
                holder: speaker?.to_owned(),
                speakers_report: true,
                attitude: Attitude::Belief,
                negated: false,
                truth: None,
                about: (!person.is_empty()).then_some(person),
                wording: elided.is_some().then(|| report.clone()),
                pointed_back,
                content: report,
                from,
                to: b,
                verb: k,
            });
        }
        let mut truth = None;
        let mut about = None;
        let mut attitude = cue.attitude;
        if let_on && !negated {
            truth = Some(false);
        } else if cue.mistaken {
            truth = Some(false);
            attitude = Attitude::Belief;
        } else if let Some(liar) = &liar_belief {
            truth = Some(false);
            about = self.latest_pretense(liar);
        } else if attitude == Attitude::Belief
            && !negated
            && voice.narrated()
            && self.contrasted(i, s, &lower[c..b])
        {
            truth = Some(false);
        }
        if about.is_none() {
            about = self.about(ws, lower, c, b, voice, &person, attitude);
        }
        let clause = clause_text(s, ws, from, b);
        let wording = match (&elided, told) {
            (_, Some(said)) => Some(format!("{clause}: “{said}”")),
            // `Teo suspects he didn't` → `… Quinton didn't get away with it`:
            // the name read alone, as the content has it.
            (Some((Some(subject), phrase)), None) if c < b => {
                let pronoun = format!(" {} ", ws[c].text);
                let clause = match clause.find(&pronoun) {
                    Some(at) => format!(
                        "{} {subject} {}",
                        &clause[..at],
                        &clause[at + pronoun.len()..]
                    ),
                    None => clause.clone(),
                };
                Some(format!("{clause} {phrase}"))
            }
            (Some((_, phrase)), None) => Some(format!("{clause} {phrase}")),
            (None, None) => None,
        };
        Some(Found {
            holder: person,
            speakers_report: false,
            attitude,
            negated,
            truth,
            content,
            about,
            from,
            to: b,
            verb: k,
            wording,
            pointed_back,
        })
    }

    /// What a state's content points at: the latest pretense of a character
    /// said to be lying, the pretense of a character whose mind a narrated
    /// belief describes, else the first other person or known object named.
    #[allow(clippy::too_many_arguments)]
    fn about(
        &self,
        ws: &[Span],
        lower: &[String],
        c: usize,
        b: usize,
        voice: Voice<'_>,
        holder: &str,
        attitude: Attitude,
    ) -> Option<String> {
        // A pronoun in the content may be the holder ("Mara believes she
        // has…"), so it is resolved without excluding them, then skipped.
        let person_at = |w: usize| {
            self.person(ws, lower, w, voice.speaker, voice.addressee, &[])
                .filter(|p| p != holder)
        };
        if c < b {
            if let Some(p) = person_at(c) {
                // `she's lying`, `he lied`, `she is lying`.
                let lying = lower[c + 1..b.min(c + 3)]
                    .iter()
                    .any(|w| matches!(w.as_str(), "lying" | "lied" | "lies"))
                    || lower[c].ends_with("'s") && lower.get(c + 1).is_some_and(|w| w == "lying");
                if lying {
                    if let Some(p) = self.latest_pretense(&p) {
                        return Some(p);
                    }
                }
                let inner_mind = (c + 1..b).any(|w| mental_cue(lower, w, b).is_some());
                if voice.narrated() && attitude == Attitude::Belief && inner_mind {
                    if let Some(p) = self.pretense_in_block(&p) {
                        return Some(p);
                    }
                }
            }
        }
        (c..b).find_map(person_at).or_else(|| {
            (c..b).find_map(|w| self.object_by_head(&lower[w]).map(|(id, _)| id.clone()))
        })
    }

    /// The node for a found state, with its `about` edge and record.
    fn propose(
        &mut self,
        i: usize,
        s: &Span,
        ws: &[Span],
        found: Found,
        voice: Voice<'_>,
    ) -> String {
        // One emotion per line (`(uneasy) I hate surprises` is one state),
        // and a parenthetical's state is not told again by the sentence it
        // names (`(realizing) She knew I was coming.`).
        let family = found.attitude.family();
        let first_sentence = sentences(&self.ctx.play.elements[i].text)
            .first()
            .is_some_and(|f| f.start == s.start);
        if let Some(m) = self.mentals.iter().find(|m| {
            m.holder == found.holder
                && m.order == (i, 0)
                && m.attitude.family() == family
                && (found.attitude == Attitude::Emotion || first_sentence)
        }) {
            return m.id.clone();
        }
        let clause = clause_text(s, ws, found.from, found.to);
        let clause_start = ws[found.from].start;
        let ev = self.evidence(
            i,
            clause_start,
            clause_start + clause.chars().count(),
            &clause,
        );
        let display = self.display(&found.holder);
        let id = format!(
            "mental_state:e{i:04}-{:03}-{}",
            ws[found.verb].start,
            found.attitude.as_str()
        );
        let mut node = Node::new(
            id,
            NodeKind::MentalState,
            format!(
                "{display}: {}",
                gloss(found.wording.as_deref().unwrap_or(&clause), 80)
            ),
        );
        node.attitude = Some(found.attitude);
        node.holder = Some(found.holder.clone());
        node.content = Some(if super::lexicon::wished(found.attitude) {
            self.spell_out_wished(
                &found.content,
                voice.speaker,
                voice.addressee,
                &found.holder,
            )
        } else {
            self.spell_out(
                &found.content,
                voice.speaker,
                voice.addressee,
                &found.holder,
            )
        });
        node.truth = found.truth;
        node.negated = found.negated;
        node.explicit = Some(true);
        node.order = Some(i);
        node.scene = Some(self.ctx.block.scene);
        node.evidence = vec![ev.clone()];
        node.target = found.about.clone();
        let reason = if found.pointed_back {
            "a mental-state verb whose content is what was just said or shown (`I know.`)"
        } else if voice.narrated() {
            "mental-state verb with its holder"
        } else if voice.narrating && voice.speaker != Some(found.holder.as_str()) {
            "mental-state verb in a narrating voice-over, the named one's state"
        } else if found.speakers_report {
            "mental-state verb in a line about another: the speaker's belief"
        } else if voice.speaker == Some(found.holder.as_str()) {
            "mental-state verb in a line, the speaker's own state"
        } else {
            "a line reporting another's mental-state verb: their state, as the speaker says it"
        };
        let id = self.add_node(node, reason);
        if let Some(t) = found.about {
            self.add_edge(
                EdgeKind::About,
                &id,
                &t,
                vec![ev.clone()],
                "content of the mental state",
            );
        }
        self.mentals.push(MentalRec {
            id: id.clone(),
            holder: found.holder,
            attitude: found.attitude,
            order: (i, ws[found.verb].start),
            evidence: ev,
        });
        id
    }

    /// The verb phrase an elided clause at word `c` means (see
    /// [`ellipsis`]): the previous clause of the sentence, else a clause of
    /// the sentence before; with the person its subject names when the
    /// elided clause's subject is a he/she that parallels it.
    #[allow(clippy::too_many_arguments)]
    fn elided(
        &self,
        i: usize,
        s: &Span,
        ws: &[Span],
        lower: &[String],
        c: usize,
        voice: Voice<'_>,
        previous: &Option<(String, String)>,
        aux: ellipsis::Aux,
    ) -> Option<(Option<String>, String)> {
        if let Some((_, predicate)) = previous {
            let phrase = if matches!(aux, ellipsis::Aux::Be | ellipsis::Aux::Have) {
                predicate.clone()
            } else {
                ellipsis::base_phrase(predicate)
            };
            return Some((None, phrase));
        }
        let (text, its_speaker, its_addressee) = self.sentence_before(i, s)?;
        let before = words(&text, 0);
        let before_lower: Vec<String> = before
            .iter()
            .map(|w| w.text.to_lowercase().replace('’', "'"))
            .collect();
        let is_name = |k: usize| self.cast.named(&before[k].text).is_some();
        let candidates = ellipsis::antecedents(&text, &is_name);
        // Who a candidate's subject is, read where it was written: a name;
        // `I` its speaker; he/she the nearest name before it that fits.
        let who = |a: &ellipsis::Antecedent| -> Option<String> {
            let base = before_lower[a.at].split('\'').next().unwrap_or_default();
            match base {
                "i" => its_speaker.clone(),
                "you" | "we" | "they" => None,
                "he" | "she" => {
                    let gender = pronoun_gender(base);
                    (0..a.at)
                        .rev()
                        .filter_map(|k| self.cast.named(&before[k].text))
                        .find(|m| m.gender.is_none_or(|g| Some(g) == gender))
                        .map(|m| m.id.clone())
                        .or_else(|| {
                            // Not whoever speaks or is spoken to there.
                            let away: Vec<&str> = its_speaker
                                .iter()
                                .chain(&its_addressee)
                                .map(String::as_str)
                                .collect();
                            self.resolve(base, &away)
                        })
                }
                _ => self.cast.named(&before[a.at].text).map(|m| m.id.clone()),
            }
        };
        let subject_word = lower[c].split('\'').next().unwrap_or_default().to_owned();
        let third_person = matches!(subject_word.as_str(), "he" | "she");
        let person = self.person(ws, lower, c, voice.speaker, voice.addressee, &[]);
        let same = |a: &ellipsis::Antecedent| {
            let base = before_lower[a.at].split('\'').next().unwrap_or_default();
            (third_person && base == subject_word)
                || (person.is_some() && who(a) == person && !third_person)
        };
        let (chosen, phrase) = ellipsis::resolve(aux, &candidates, &same)?;
        let subject = if third_person {
            who(&chosen).map(|id| {
                self.display(&id)
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_owned()
            })
        } else {
            None
        };
        Some((subject, phrase))
    }

    /// The first sentence of `who`'s next line when it follows element `i`
    /// with nothing but its cue and parenthetical between: spelled out in
    /// its own voice to `addressee` (`You took it out.` → `Mara took it
    /// out`), and as written.
    fn next_line_of(
        &self,
        i: usize,
        who: &str,
        addressee: Option<String>,
    ) -> Option<(String, String)> {
        let [_, last] = self.ctx.block.elements;
        let line = (i + 1..=last)
            .map(|j| (j, &self.ctx.play.elements[j]))
            .find(|(_, e)| {
                !matches!(
                    e.kind,
                    crate::screenplay::ElementKind::Character
                        | crate::screenplay::ElementKind::Parenthetical
                )
            })
            .filter(|(_, e)| e.kind == crate::screenplay::ElementKind::Dialogue)?;
        let (j, e) = line;
        if self.speaker_at(j).as_deref() != Some(who) {
            return None;
        }
        let first = sentences(&e.text).into_iter().next()?;
        if first.text.trim_end().ends_with('?') {
            return None;
        }
        let addressee = addressee.or_else(|| self.addressee(j, who));
        let spelled =
            trim_clause(&self.spell_out(&first.text, Some(who), addressee.as_deref(), who));
        Some((spelled, first.text.trim().to_owned()))
    }

    /// The sentence before this one in its element, else the block's
    /// previous line or action's last sentence, with who speaks it.
    fn sentence_before(
        &self,
        i: usize,
        s: &Span,
    ) -> Option<(String, Option<String>, Option<String>)> {
        let voice = |j: usize| {
            let speaker = self.speaker_at(j);
            let addressee = speaker.as_deref().and_then(|sp| self.addressee(j, sp));
            (speaker, addressee)
        };
        let el = self.ctx.play.elements.get(i)?;
        if let Some(prev) = sentences(&el.text).into_iter().rfind(|p| p.end <= s.start) {
            let (speaker, addressee) = voice(i);
            return Some((prev.text, speaker, addressee));
        }
        let [first, _] = self.ctx.block.elements;
        (first..i).rev().find_map(|j| {
            let e = &self.ctx.play.elements[j];
            matches!(
                e.kind,
                crate::screenplay::ElementKind::Dialogue | crate::screenplay::ElementKind::Action
            )
            .then(|| {
                let last = sentences(&e.text).into_iter().next_back()?;
                let (speaker, addressee) = voice(j);
                Some((last.text, speaker, addressee))
            })
            .flatten()
        })
    }

    /// The latest sentence of the element before `s` that shows something
    /// itself, passing over sentences that only point at what came before
    /// (`June sees it.`, `He notices.`).
    fn shown_before(&self, i: usize, s: &Span) -> Option<String> {
        let el = self.ctx.play.elements.get(i)?;
        let pointing = |text: &str| {
            let ws: Vec<String> = words(text, 0)
                .iter()
                .map(|w| w.text.to_lowercase())
                .collect();
            ws.len() <= 3
                && ws
                    .iter()
                    .any(|w| super::lexicon::PERCEIVE_VERBS.contains(&w.as_str()))
        };
        sentences(&el.text)
            .into_iter()
            .filter(|p| p.end <= s.start)
            .rfind(|p| !pointing(&p.text))
            .map(|p| trim_clause(&p.text))
            .or_else(|| self.antecedent(i, s))
    }

    /// What a pronoun object refers back to: the sentence before in the
    /// element, else the block's previous line or action.
    pub(super) fn antecedent(&self, i: usize, s: &Span) -> Option<String> {
        use crate::screenplay::ElementKind;
        let el = self.ctx.play.elements.get(i)?;
        if let Some(prev) = sentences(&el.text).into_iter().rfind(|p| p.end <= s.start) {
            return Some(trim_clause(&prev.text));
        }
        // A line's `I know.` answers what another character just said (its
        // last sentence), not the action between: what someone does is no
        // claim to know. Narration's `She knows it.` may point at either.
        let in_line = el.kind == ElementKind::Dialogue;
        let [first, _] = self.ctx.block.elements;
        (first..i).rev().find_map(|j| {
            let e = &self.ctx.play.elements[j];
            let fits = match e.kind {
                ElementKind::Dialogue => !in_line || e.speaker != el.speaker,
                ElementKind::Action => !in_line,
                _ => false,
            };
            // Its last sentence that is more than a name called out
            // (`“Arrears of eleven thousand…” Mara.`), in its own voice: the
            // `I` of another's line is that speaker (`I'd bet the farm on
            // it` answered by `I know.` is what she would bet).
            fits.then(|| {
                let said = sentences(&e.text)
                    .into_iter()
                    .rev()
                    .find(|p| p.text.split_whitespace().count() > 1)
                    .map_or_else(|| trim_clause(&e.text), |last| trim_clause(&last.text));
                let voice = (e.kind == ElementKind::Dialogue)
                    .then(|| self.speaker_at(j))
                    .flatten();
                match voice {
                    Some(them) => {
                        let to = self.addressee(j, &them);
                        self.spell_out(&said, Some(&them), to.as_deref(), &them)
                    }
                    None => said,
                }
            })
        })
    }

    /// Whether a sentence beside this one in the element sets a narrated
    /// belief against the facts: the belief's own verb said again of
    /// something else ("He thinks she means the key. She means the money."),
    /// a pretense beside it, or, in the sentence right after, a short
    /// denial (`It isn't.`) or a denial of the belief's own words. A negation
    /// about something else next to it ("Owen is not aware…") says nothing
    /// of this belief.
    fn contrasted(&self, i: usize, s: &Span, content: &[String]) -> bool {
        let Some(el) = self.ctx.play.elements.get(i) else {
            return false;
        };
        let all = sentences(&el.text);
        let Some(at) = all.iter().position(|p| p.start == s.start) else {
            return false;
        };
        let verb = content.get(1).map(String::as_str);
        let words_of = |p: &Span| -> Vec<String> {
            crate::text::spans::words(&p.text, 0)
                .into_iter()
                .map(|w| w.text.to_lowercase().replace('’', "'"))
                .collect()
        };
        let own = crate::text::content_words(&content.join(" "));
        let echoed = [at.checked_sub(1), Some(at + 1)]
            .into_iter()
            .flatten()
            .filter_map(|n| all.get(n))
            .any(|p| {
                words_of(p)
                    .iter()
                    .any(|w| w.starts_with("pretend") || Some(w.as_str()) == verb)
            });
        let denied = all.get(at + 1).is_some_and(|p| {
            let ws = words_of(p);
            let shares = crate::text::content_words(&p.text)
                .iter()
                .any(|w| own.contains(w));
            ws.iter().any(|w| is_negation(w)) && (ws.len() <= 4 || shares)
        });
        echoed || denied
    }

    /// A character's latest pretense: in this block, else known before.
    pub(super) fn latest_pretense(&self, who: &str) -> Option<String> {
        self.pretense_in_block(who).or_else(|| {
            self.ctx
                .entities
                .values()
                .filter(|n| {
                    n.attitude == Some(Attitude::Pretense) && n.holder.as_deref() == Some(who)
                })
                .max_by_key(|n| (n.order, n.id.clone()))
                .map(|n| n.id.clone())
        })
    }

    fn pretense_in_block(&self, who: &str) -> Option<String> {
        self.mentals
            .iter()
            .rev()
            .find(|m| m.holder == who && m.attitude == Attitude::Pretense)
            .map(|m| m.id.clone())
    }
}
