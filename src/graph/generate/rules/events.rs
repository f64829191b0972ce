//! Events: the event node (with a causal edge after `So`), a
//! perception verb's witness of the latest act, and `lets`/`so that`
//! (enables) or `stops … from` (prevents) with the second act they name.

use super::lexicon::{ADVERBS, ANAPHORS, EMOTION_NOUNS, PERCEIVE_VERBS};
use super::{EventRec, Extractor, MentalRec};
use crate::graph::schema::*;
use crate::text::spans::{gloss, Span};

impl Extractor<'_, '_> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn event(
        &mut self,
        i: usize,
        start: usize,
        act: Act,
        agent: &str,
        participants: Vec<String>,
        name: String,
        ev: Evidence,
        connective: bool,
    ) -> String {
        let mut node = Node::new(
            format!("event:e{i:04}-{start:03}-{}", act.as_str()),
            NodeKind::Event,
            name,
        );
        node.agent = Some(agent.to_owned());
        node.participants = participants.clone();
        node.act = Some(act);
        node.order = Some(i);
        node.scene = Some(self.ctx.block.scene);
        node.evidence = vec![ev.clone()];
        let reason = if act == Act::Action {
            "action sentence with a character subject"
        } else {
            "speech act"
        };
        let id = self.add_node(node, reason);
        if connective {
            if let Some(prev) = self.events.last().cloned() {
                self.add_edge(
                    EdgeKind::Causes,
                    &prev.id,
                    &id,
                    vec![prev.evidence.clone(), ev.clone()],
                    "connective `So` after an event: the one before is its reason",
                );
            }
        }
        self.events.push(EventRec {
            id: id.clone(),
            act,
            agent: agent.to_owned(),
            participants,
            order: (i, start),
            evidence: ev,
        });
        id
    }

    /// `<Character> [adverb] sees|notices|watches…`: a witness of the latest act
    /// by someone else in the block.
    pub(super) fn perception(&mut self, i: usize, s: &Span, ws: &[Span], lower: &[String]) {
        let later = self.named_only_after(ws, 0);
        let later: Vec<&str> = later.iter().map(String::as_str).collect();
        let Some(who) = self.person(ws, lower, 0, None, None, &later) else {
            return;
        };
        let mut k = 1;
        while k < lower.len() && ADVERBS.contains(&lower[k].as_str()) {
            k += 1;
        }
        if k >= lower.len() || !PERCEIVE_VERBS.contains(&lower[k].as_str()) {
            return;
        }
        // `He notices.`, `June sees it.`: knowledge of what was just shown.
        let object = &lower[k + 1..];
        if object.is_empty() || object.len() == 1 && ANAPHORS.contains(&object[0].as_str()) {
            self.witness(i, s, ws, &who, k);
        }
        // `June hears the jealousy`: knowledge of someone's feeling.
        let noun = match object {
            [d, noun, ..] if matches!(d.as_str(), "the" | "his" | "her" | "their") => Some(noun),
            [noun, ..] => Some(noun),
            [] => None,
        };
        if let Some(noun) = noun.filter(|n| EMOTION_NOUNS.contains(&n.as_str())) {
            self.perceived_feeling(i, s, ws, &who, k, noun);
        }
        let Some(e) = self.events.iter().rev().find(|e| e.agent != who).cloned() else {
            return;
        };
        let ev = self.span_evidence(i, s);
        self.add_edge(
            EdgeKind::Perceives,
            &who,
            &e.id,
            vec![ev, e.evidence],
            "perception verb: the block's latest act by someone else",
        );
    }

    /// `… lets|allows <person> …` / `… so that <person> …` enables that person's
    /// act; `… stops|keeps|prevents <person> from …` prevents it. The act is a
    /// second event from the clause after the person.
    pub(super) fn enabling(
        &mut self,
        i: usize,
        s: &Span,
        ws: &[Span],
        lower: &[String],
        first_event: &str,
        agent: &str,
    ) {
        for k in 1..ws.len().saturating_sub(1) {
            let (kind, who_at, act_at) = match lower[k].as_str() {
                "lets" | "let" | "allows" | "allowed" => (EdgeKind::Enables, k + 1, k + 2),
                "so" if lower[k + 1] == "that" => (EdgeKind::Enables, k + 2, k + 3),
                "stops" | "stopped" | "keeps" | "kept" | "prevents" | "prevented"
                    if lower.get(k + 2).map(String::as_str) == Some("from") =>
                {
                    (EdgeKind::Prevents, k + 1, k + 3)
                }
                _ => continue,
            };
            if act_at >= ws.len() {
                continue;
            }
            let Some(who) = self
                .person(ws, lower, who_at, None, None, &[agent])
                .filter(|w| w != agent)
            else {
                continue;
            };
            let ev = self.words_evidence(i, s, ws, who_at, ws.len() - 1);
            let name = if kind == EdgeKind::Prevents {
                format!(
                    "{} is kept from: {}",
                    self.display(&who),
                    gloss(&ev.quote, 70)
                )
            } else {
                gloss(&ev.quote, 80)
            };
            let second = self.event(
                i,
                ws[who_at].start,
                Act::Action,
                &who,
                vec![who.clone(), agent.to_owned()],
                name,
                ev,
                false,
            );
            let reason = if kind == EdgeKind::Prevents {
                "stops/keeps/prevents <person> from: the first act prevents the second"
            } else {
                "lets/allows/so that <person>: the first act enables the second"
            };
            let sentence = self.span_evidence(i, s);
            self.add_edge(kind, first_event, &second, vec![sentence], reason);
            break;
        }
    }

    /// `<Perceiver> hears|sees the <feeling>`: the perceiver knows that the
    /// one who feels it does — the block's latest feeling of someone else
    /// (the state it is about), else the latest other speaker's.
    fn perceived_feeling(
        &mut self,
        i: usize,
        s: &Span,
        ws: &[Span],
        who: &str,
        verb: usize,
        noun: &str,
    ) {
        let felt = self
            .mentals
            .iter()
            .rev()
            .find(|m| m.attitude == Attitude::Emotion && m.holder != who && m.order.0 < i)
            .cloned();
        let feeler = felt.as_ref().map(|m| m.holder.clone()).or_else(|| {
            self.speakers
                .iter()
                .rev()
                .find(|(j, sp)| *j < i && sp != who)
                .map(|(_, sp)| sp.clone())
        });
        let Some(feeler) = feeler else {
            return;
        };
        let ev = self.span_evidence(i, s);
        let display = self.display(who);
        let feeler_name = self
            .display(&feeler)
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_owned();
        let mut node = Node::new(
            format!("mental_state:e{i:04}-{:03}-knowledge", ws[verb].start),
            NodeKind::MentalState,
            format!("{display} {} {feeler_name}'s {noun}", ws[verb].text),
        );
        node.attitude = Some(Attitude::Knowledge);
        node.holder = Some(who.to_owned());
        node.content = Some(format!("{feeler_name} feels {noun}"));
        node.explicit = Some(true);
        node.order = Some(i);
        node.scene = Some(self.ctx.block.scene);
        node.target = felt.as_ref().map(|m| m.id.clone());
        node.evidence = vec![ev.clone()];
        let id = self.add_node(
            node,
            "perceiving a feeling: the perceiver knows the one who feels it does",
        );
        if let Some(m) = &felt {
            self.add_edge(
                EdgeKind::About,
                &id,
                &m.id,
                vec![ev.clone(), m.evidence.clone()],
                "the feeling perceived",
            );
        }
        self.mentals.push(MentalRec {
            id,
            holder: who.to_owned(),
            attitude: Attitude::Knowledge,
            order: (i, ws[verb].start),
            evidence: ev,
        });
    }

    /// `So does Mara.` / `So did he.`: the states the sentence before gave
    /// its subject, held by this one too.
    pub(super) fn so_does(&mut self, i: usize, s: &Span, ws: &[Span], lower: &[String]) {
        let so_aux = lower.first().is_some_and(|w| w == "so")
            && lower.get(1).is_some_and(|w| {
                matches!(
                    w.as_str(),
                    "does" | "did" | "do" | "is" | "was" | "has" | "had" | "can" | "could"
                )
            });
        if !so_aux || ws.len() < 3 {
            return;
        }
        let Some(who) = self.person(ws, lower, 2, None, None, &[]) else {
            return;
        };
        let Some(el) = self.ctx.play.elements.get(i) else {
            return;
        };
        let Some(before) = crate::text::spans::sentences(&el.text)
            .into_iter()
            .rfind(|p| p.end <= s.start)
        else {
            return;
        };
        let told: Vec<MentalRec> = self
            .mentals
            .iter()
            .filter(|m| m.order.0 == i && (before.start..before.end).contains(&m.order.1))
            .filter(|m| m.holder != who)
            .cloned()
            .collect();
        let ev = self.span_evidence(i, s);
        for m in told {
            let Some(Item::Node(original)) = self.node_index.get(&m.id).map(|&k| &self.items[k].0)
            else {
                continue;
            };
            let original = original.clone();
            let Some(attitude) = original.attitude else {
                continue;
            };
            let display = self.display(&who);
            // "June hears Mara's jealousy" → "Mara also hears …".
            let was = original
                .holder
                .as_deref()
                .map(|h| self.display(h))
                .unwrap_or_default();
            let told = original
                .name
                .strip_prefix(&format!("{was}: "))
                .or_else(|| original.name.strip_prefix(&was))
                .unwrap_or(&original.name)
                .trim()
                .to_owned();
            let told = told
                .strip_prefix(&format!("{was} "))
                .unwrap_or(&told)
                .to_owned();
            // "Mara also hears Mara's jealousy" → "… hears her own jealousy".
            let own = match self.cast.by_id(&who).and_then(|m| m.gender) {
                Some(crate::graph::generate::cast::Gender::Female) => "her own ",
                Some(crate::graph::generate::cast::Gender::Male) => "his own ",
                _ => "the ",
            };
            let told = told.replace(&format!("{display}'s "), own);
            let mut node = Node::new(
                format!("mental_state:e{i:04}-{:03}-{}", s.start, attitude.as_str()),
                NodeKind::MentalState,
                format!("{display} also {}", gloss(&told, 70)),
            );
            node.attitude = Some(attitude);
            node.holder = Some(who.clone());
            node.content = original.content.clone();
            node.negated = original.negated;
            node.truth = original.truth;
            node.explicit = Some(true);
            node.order = Some(i);
            node.scene = Some(self.ctx.block.scene);
            node.target = original.target.clone();
            node.evidence = vec![m.evidence.clone(), ev.clone()];
            let id = self.add_node(
                node,
                "`So does <person>`: the sentence before's state, theirs too",
            );
            if let Some(t) = &original.target {
                self.add_edge(
                    EdgeKind::About,
                    &id,
                    t,
                    vec![m.evidence.clone(), ev.clone()],
                    "content of the mental state",
                );
            }
            self.mentals.push(MentalRec {
                id,
                holder: who.clone(),
                attitude,
                order: (i, s.start),
                evidence: ev.clone(),
            });
        }
    }

    /// The knowledge a perception verb with no object of its own gives its
    /// subject: what the sentence before showed.
    fn witness(&mut self, i: usize, s: &Span, ws: &[Span], who: &str, verb: usize) {
        let Some(content) = self.antecedent(i, s) else {
            return;
        };
        let ev = self.span_evidence(i, s);
        let display = self.display(who);
        let mut node = Node::new(
            format!("mental_state:e{i:04}-{:03}-knowledge", ws[verb].start),
            NodeKind::MentalState,
            format!("{display} {}: {}", ws[verb].text, gloss(&content, 70)),
        );
        node.attitude = Some(Attitude::Knowledge);
        node.holder = Some(who.to_owned());
        node.content = Some(content);
        node.explicit = Some(true);
        node.order = Some(i);
        node.scene = Some(self.ctx.block.scene);
        node.evidence = vec![ev.clone()];
        let id = self.add_node(
            node,
            "perception verb: the witness knows what was just shown",
        );
        self.mentals.push(MentalRec {
            id,
            holder: who.to_owned(),
            attitude: Attitude::Knowledge,
            order: (i, ws[verb].start),
            evidence: ev,
        });
    }
}
