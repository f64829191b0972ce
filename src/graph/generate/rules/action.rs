//! Action sentences: character introductions (`NAME (age)`), capitalised
//! props and known objects, character names, an emotion noun as subject, and
//! the event when the subject is a character; the sentence's perception,
//! possession, relation, goal and mental-state cues are read from here.

use super::lexicon::{DECIDING_VERBS, DECISION_NOUNS, EMOTION_NOUNS};
use super::{EventRec, Extractor, MentalRec};
use crate::graph::generate::cast::pronoun_gender;
use crate::graph::schema::*;
use crate::text::spans::{gloss, is_caps, title_case, words, Span};

impl Extractor<'_, '_> {
    pub(super) fn action_sentence(&mut self, i: usize, s: &Span) {
        let ws = words(&s.text, s.start);
        // Introductions and capitalised props.
        let mut named: Vec<String> = Vec::new();
        // Props mentioned in this sentence: (first word, last word, id).
        let mut props: Vec<(usize, usize, String)> = Vec::new();
        let mut k = 0;
        while k < ws.len() {
            if !(is_caps(&ws[k].text)
                && ws[k].text.chars().filter(|c| c.is_alphabetic()).count() >= 2)
            {
                k += 1;
                continue;
            }
            let run_start = k;
            while k < ws.len() && is_caps(&ws[k].text) && ws[k].text.chars().count() >= 2 {
                k += 1;
            }
            let run = &ws[run_start..k];
            let (a, b) = (run[0].start - s.start, run[run.len() - 1].end - s.start);
            let run_text: String = s.text.chars().skip(a).take(b - a).collect();
            let after: String = s.text.chars().skip(b).take(3).collect();
            let intro = after.trim_start().starts_with('(')
                && after.trim_start()[1..].starts_with(|c: char| c.is_ascii_digit());
            let start = run[0].start;
            let end = run[run.len() - 1].end;
            let ev = self.evidence(i, start, end, &run_text);
            if intro {
                let name = title_case(&run_text);
                let known = self.cast.named(&title_case(&run[0].text)).cloned();
                let mut node = Node::new(
                    format!("character:{}", slug(&name)),
                    NodeKind::Character,
                    name,
                );
                node.evidence = vec![ev.clone()];
                let proposed = self.add_node(node, "character introduction (NAME (age))");
                let id = known.map(|m| m.id).unwrap_or(proposed);
                self.recent.retain(|r| r != &id);
                self.recent.push(id.clone());
                named.push(id);
            } else if run.iter().all(|w| self.cast.named(&w.text).is_none())
                && run.len() != ws.len()
                && run_text.chars().filter(|c| c.is_alphabetic()).count() >= 3
            {
                let name = title_case(&run_text);
                let id = format!("object:{}", slug(&name));
                let mut node = Node::new(id.clone(), NodeKind::Object, name.clone());
                node.evidence = vec![ev];
                self.add_node(node, "capitalised prop in action");
                props.push((run_start, k - 1, id.clone()));
                if !self.objects.iter().any(|(o, _)| o == &id) {
                    self.objects.push((id, name));
                }
            }
        }
        // Known objects mentioned by their head word (`the ring`).
        for (wi, w) in ws.iter().enumerate() {
            let lw = w.text.to_lowercase();
            let hit = self
                .object_by_head(&lw)
                .filter(|_| !is_caps(&w.text))
                .cloned();
            if let Some((_, _)) = hit {
                let mut node = Node::new(
                    format!("object:{}", slug(&lw)),
                    NodeKind::Object,
                    lw.clone(),
                );
                node.evidence = vec![self.evidence(i, w.start, w.end, &w.text)];
                let id = self.add_node(node, "known object named by its head word");
                props.push((wi, wi, id));
            }
        }
        // The sentence's subject stays the most salient after it, ahead of
        // someone it only names in passing (`He is certain the widow has no
        // idea what is in Abel's diaries. Augusta knows how certain he is.`:
        // he is still the one who was certain). A pronoun subject is read
        // before the sentence's own names, which it cannot mean.
        let subject = match ws.first().map(|w| w.text.to_lowercase()) {
            Some(p) if p == "he" || p == "she" => {
                let later = self.named_only_after(&ws, 0);
                let later: Vec<&str> = later.iter().map(String::as_str).collect();
                self.resolve_narrated(&p, &later)
            }
            _ => ws
                .first()
                .and_then(|w| self.cast.named(&w.text))
                .map(|m| m.id.clone()),
        };
        // Character names.
        let mut names_at: Vec<(usize, String)> = Vec::new();
        for (wi, w) in ws.iter().enumerate() {
            if let Some(m) = self.cast.named(&w.text).cloned() {
                // `JUNE OKAFOR`: a surname after its own first name is the
                // same mention.
                if names_at
                    .last()
                    .is_some_and(|(at, id)| at + 1 == wi && *id == m.id)
                {
                    continue;
                }
                let ev = self.evidence(i, w.start, w.end, &w.text);
                self.mention(&m.id, ev);
                names_at.push((wi, m.id.clone()));
                if !named.contains(&m.id) {
                    named.push(m.id);
                }
            }
        }
        let lower: Vec<String> = ws
            .iter()
            .map(|w| w.text.to_lowercase().replace('’', "'"))
            .collect();
        if let Some(id) = subject.filter(|id| self.recent.contains(id)) {
            self.recent.retain(|r| r != &id);
            self.recent.push(id);
        }
        self.perception(i, s, &ws, &lower);
        self.possession(i, s, &ws, &lower, &props);
        self.social_relations(i, s, &ws, &lower, &names_at, None);
        self.social_goals(i, s, &ws, &lower, None, None);
        // Emotion nouns as subject: `Jealousy made the decision for her`,
        // `Relief and dread share his face`.
        if lower
            .first()
            .is_some_and(|w| EMOTION_NOUNS.contains(&w.as_str()))
        {
            self.emotion_subject(i, s, &lower, &named);
            return;
        }
        self.so_does(i, s, &ws, &lower);
        // Mental-state verbs.
        let narration = super::mental::Voice {
            speaker: None,
            addressee: None,
            narrating: false,
        };
        let found = self.mental_states(i, s, &ws, &lower, narration);
        // An event when the subject is a character and its verb is not mental.
        let Some(first) = ws.first() else { return };
        let subject = match self.cast.named(&first.text) {
            Some(m) => Some(m.id.clone()),
            None if matches!(lower[0].as_str(), "he" | "she") => {
                let later = self.named_only_after(&ws, 0);
                let later: Vec<&str> = later.iter().map(String::as_str).collect();
                self.resolve_narrated(&lower[0], &later)
            }
            None => None,
        };
        let Some(agent) = subject else { return };
        if found.iter().any(|(verb_at, _)| *verb_at <= 3) || ws.len() < 2 {
            return;
        }
        let mut participants = vec![agent.clone()];
        for id in &named {
            if !participants.contains(id) {
                participants.push(id.clone());
            }
        }
        for w in &lower[1..] {
            if matches!(w.as_str(), "him" | "her") {
                if let Some(id) = self.resolve(w, &[&agent]) {
                    if !participants.contains(&id) {
                        participants.push(id);
                    }
                }
            }
        }
        let ev = self.span_evidence(i, s);
        // `So he…` gives a reason; `So does Mara` only says "too".
        let connective = lower[0] == "so"
            && !lower.get(1).is_some_and(|w| {
                matches!(
                    w.as_str(),
                    "does" | "do" | "did" | "is" | "was" | "has" | "have" | "had" | "am" | "are"
                )
            });
        let id = self.event(
            i,
            s.start,
            Act::Action,
            &agent,
            participants,
            gloss(&s.text, 80),
            ev,
            connective,
        );
        self.enabling(i, s, &ws, &lower, &id, &agent);
    }

    /// A sentence whose subject is an emotion noun (or two joined by
    /// `and`): an emotion of the character named (else the pronoun's).
    /// When the emotion makes a decision or choice, it motivates the
    /// holder's act just before: the decision the line has shown.
    fn emotion_subject(&mut self, i: usize, s: &Span, lower: &[String], named: &[String]) {
        let holder = named.first().cloned().or_else(|| {
            lower[1..]
                .iter()
                .find_map(|w| pronoun_gender(w).and_then(|_| self.resolve(w, &[])))
        });
        let Some(holder) = holder else {
            return;
        };
        let mut nouns = vec![lower[0].clone()];
        if lower.get(1).is_some_and(|w| w == "and")
            && lower
                .get(2)
                .is_some_and(|w| EMOTION_NOUNS.contains(&w.as_str()))
        {
            nouns.push(lower[2].clone());
        }
        let ev = self.span_evidence(i, s);
        let display = self.display(&holder);
        let mut ids = Vec::new();
        for noun in &nouns {
            let mut node = Node::new(
                format!("mental_state:e{i:04}-{:03}-emotion-{}", s.start, slug(noun)),
                NodeKind::MentalState,
                format!("{display} feels {noun}: {}", gloss(&s.text, 70)),
            );
            node.attitude = Some(Attitude::Emotion);
            node.holder = Some(holder.clone());
            node.content = Some(noun.clone());
            node.explicit = Some(true);
            node.order = Some(i);
            node.scene = Some(self.ctx.block.scene);
            node.evidence = vec![ev.clone()];
            let id = self.add_node(node, "emotion noun as subject");
            self.mentals.push(MentalRec {
                id: id.clone(),
                holder: holder.clone(),
                attitude: Attitude::Emotion,
                order: (i, s.start),
                evidence: ev.clone(),
            });
            ids.push(id);
        }
        let decides = lower
            .get(1)
            .is_some_and(|w| DECIDING_VERBS.contains(&w.as_str()))
            && lower.iter().any(|w| DECISION_NOUNS.contains(&w.as_str()));
        if !decides {
            return;
        }
        // The decision: the holder's latest refusal before the sentence,
        // else promise, else deed (a plea or a question decides nothing),
        // else their latest act.
        let before: Vec<EventRec> = self
            .events
            .iter()
            .filter(|e| e.agent == holder && e.order.0 < i)
            .cloned()
            .collect();
        let latest = |act: Act| before.iter().rev().find(|e| e.act == act);
        let decision = latest(Act::Refusal)
            .or_else(|| latest(Act::Promise))
            .or_else(|| latest(Act::Action))
            .or(before.last())
            .cloned();
        if let (Some(e), Some(id)) = (decision, ids.first()) {
            self.add_edge(
                EdgeKind::Motivates,
                id,
                &e.id,
                vec![ev, e.evidence],
                "an emotion that makes the decision motivates the holder's act before it",
            );
        }
    }
}
