//! Mental-state clauses: `<subject> [not] <mental verb> <content>` with the
//! holder resolved, nested clauses as higher-order states, and false beliefs
//! (not knowing what the text states, believing a liar).

use super::lexicon::{mental_verb, ADVERBS, NEGATIONS};
use super::{Extractor, MentalRec};
use crate::graph::schema::*;
use crate::graph::text::{gloss, Span};

impl Extractor<'_, '_> {
    /// Finds `<subject> [not] <mental verb> <content>` clauses in a sentence and
    /// proposes a mental state for each (nested clauses become higher-order
    /// states); returns (verb position, id).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn mental_states(
        &mut self,
        i: usize,
        s: &Span,
        ws: &[Span],
        lower: &[String],
        speaker: Option<&str>,
        addressee: Option<&str>,
        narrated: bool,
        from: usize,
    ) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        // A question asserts nothing about anyone's mind.
        if s.text.trim_end().ends_with('?') {
            return out;
        }
        let mut k = from;
        while k < ws.len() {
            let Some(attitude) = mental_verb(&lower[k]) else {
                k += 1;
                continue;
            };
            // Subject: the word before, skipping one negation/adverb.
            let mut j = k;
            let mut negated = false;
            while j > from
                && (NEGATIONS.contains(&lower[j - 1].as_str())
                    || ADVERBS.contains(&lower[j - 1].as_str()))
            {
                negated |= NEGATIONS.contains(&lower[j - 1].as_str())
                    && lower[j - 1] != "do"
                    && lower[j - 1] != "does"
                    && lower[j - 1] != "did";
                j -= 1;
            }
            if j == from && from > 0 || j == 0 {
                k += 1;
                continue;
            }
            let subj = &lower[j - 1];
            let holder = match subj.as_str() {
                "i" => speaker.map(str::to_owned),
                "you" => addressee.map(str::to_owned),
                "he" | "she" => self.resolve(subj, &speaker.into_iter().collect::<Vec<_>>()),
                _ => self.cast.named(&ws[j - 1].text).map(|m| m.id.clone()),
            };
            let Some(holder) = holder else {
                k += 1;
                continue;
            };
            let mut c = k + 1;
            if c < ws.len() && lower[c] == "that" {
                c += 1;
            }
            let clause_start = ws[j - 1].start;
            let content = if c < ws.len() {
                s.text
                    .chars()
                    .skip(ws[c].start - s.start)
                    .collect::<String>()
            } else {
                String::new()
            };
            let content = content.trim_end_matches(['.', '!', '?']).trim().to_owned();
            if content.is_empty() && attitude != Attitude::Knowledge {
                k += 1;
                continue;
            }
            // Target: a person named or pronoun-referred in the content, else an object.
            let mut target: Option<String> = None;
            for w in c..ws.len() {
                if let Some(m) = self.cast.named(&ws[w].text) {
                    if m.id != holder {
                        target = Some(m.id.clone());
                        break;
                    }
                }
                let lw = lower[w].as_str();
                let id = match lw {
                    "me" | "i" => speaker.map(str::to_owned),
                    "you" => addressee.map(str::to_owned),
                    "him" | "her" | "he" | "she" => self.resolve(lw, &[&holder]),
                    _ => None,
                };
                if let Some(id) = id.filter(|id| id != &holder) {
                    target = Some(id);
                    break;
                }
            }
            if target.is_none() {
                target = (c..ws.len()).find_map(|w| {
                    self.objects
                        .iter()
                        .find(|(_, name)| {
                            name.split_whitespace()
                                .last()
                                .map(str::to_lowercase)
                                .as_deref()
                                == Some(lower[w].as_str())
                        })
                        .map(|(id, _)| id.clone())
                });
            }
            let mut attitude = attitude;
            let mut truth = None;
            let mut label = attitude.as_str().to_owned();
            // Only a top-level clause is asserted; a nested one is someone's thought.
            if attitude == Attitude::Knowledge && negated && from == 0 {
                // Not knowing what the text states: a false belief.
                attitude = Attitude::Belief;
                truth = Some(false);
                label = "false-belief".to_owned();
            } else if attitude == Attitude::Belief && !negated && from == 0 {
                if let Some(t) = &target {
                    if let Some((_, lie)) = self.lies.get(t) {
                        truth = Some(false);
                        label = format!("false-belief (believes the lie “{}”)", gloss(lie, 40));
                    }
                }
            }
            let clause: String = s
                .text
                .chars()
                .skip(clause_start - s.start)
                .collect::<String>()
                .trim_end_matches(['.', '!', '?'])
                .to_owned();
            let display = self.display(&holder);
            let id = format!(
                "mental_state:e{i:04}-{:03}-{}",
                ws[k].start,
                attitude.as_str()
            );
            let ev = self.evidence(
                i,
                clause_start,
                clause_start + clause.chars().count(),
                &clause,
            );
            let mut node = Node::new(
                id.clone(),
                NodeKind::MentalState,
                format!("{display}: {}", gloss(&clause, 80)),
            );
            node.attitude = Some(attitude);
            node.holder = Some(holder.clone());
            node.content = Some(if truth == Some(false) {
                format!("{label}: {content}")
            } else {
                content.clone()
            });
            node.truth = truth;
            node.order = Some(i);
            node.scene = Some(self.ctx.block.scene);
            node.evidence = vec![ev.clone()];
            // Higher order: a mental clause inside the content.
            let inner = self.mental_states(i, s, ws, lower, speaker, addressee, narrated, c);
            if let Some((_, inner_id)) = inner.first() {
                node.target = Some(inner_id.clone());
            } else {
                node.target = target.clone();
            }
            let node_target = node.target.clone();
            let id = self.add_node(node, "mental-state verb with its holder");
            if let Some(t) = node_target {
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
                holder,
                attitude,
                order: (i, ws[k].start),
                narrated,
                evidence: ev,
            });
            out.push((k - from, id));
            out.extend(inner);
            break;
        }
        out
    }
}
