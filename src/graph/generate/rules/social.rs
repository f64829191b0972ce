//! Social cues: possession (holding verbs, possessives before a prop),
//! labelled social relations (role words in apposition or after a copula)
//! and social goals (help or hinder verbs toward another person).

use super::lexicon::{goal_verb, ADVERBS, AUXILIARIES, HOLD_VERBS, ROLES};
use super::{Extractor, MentalRec};
use crate::graph::schema::*;
use crate::text::spans::{gloss, Span};

impl Extractor<'_, '_> {
    /// Holding verbs and possessives before a prop.
    pub(super) fn possession(
        &mut self,
        i: usize,
        s: &Span,
        ws: &[Span],
        lower: &[String],
        props: &[(usize, usize, String)],
    ) {
        if props.is_empty() {
            return;
        }
        if let Some(who) = self.person(ws, lower, 0, None, None, &[]) {
            let mut k = 1;
            while k < lower.len() && ADVERBS.contains(&lower[k].as_str()) {
                k += 1;
            }
            if k < lower.len() && HOLD_VERBS.contains(&lower[k].as_str()) {
                // Only a determiner or particle between the verb and the prop.
                let held = props.iter().find(|(a, _, _)| {
                    *a > k
                        && lower[k + 1..*a].iter().all(|w| {
                            matches!(
                                w.as_str(),
                                "the"
                                    | "a"
                                    | "an"
                                    | "out"
                                    | "up"
                                    | "back"
                                    | "his"
                                    | "her"
                                    | "their"
                            )
                        })
                });
                if let Some((_, b, id)) = held {
                    let ev = self.words_evidence(i, s, ws, 0, *b);
                    self.add_edge(
                        EdgeKind::Possesses,
                        &who,
                        id,
                        vec![ev],
                        "holding verb with the character as subject and a prop after it",
                    );
                }
            }
        }
        for (a, b, id) in props {
            for back in 1..=2 {
                if *a < back {
                    break;
                }
                let j = a - back;
                let w = lower[j].as_str();
                let who = match w {
                    "his" | "her" => self.resolve(w, &[]),
                    _ if w.ends_with("'s") => self.cast.named(&ws[j].text).map(|m| m.id.clone()),
                    _ => None,
                };
                if let Some(who) = who {
                    let ev = self.words_evidence(i, s, ws, j, *b);
                    self.add_edge(
                        EdgeKind::Possesses,
                        &who,
                        id,
                        vec![ev],
                        "possessive right before a prop",
                    );
                    break;
                }
                // `her mother's ring` is not hers.
                if w.ends_with("'s") {
                    break;
                }
            }
        }
    }

    /// `<Name>, his|her|my <role>` (apposition) and `He's|<Name> is my <role>`
    /// (copula): a labelled relation from the possessor to the person named.
    pub(super) fn social_relations(
        &mut self,
        i: usize,
        s: &Span,
        ws: &[Span],
        lower: &[String],
        names_at: &[(usize, String)],
        speaker: Option<&str>,
    ) {
        for r in 1..ws.len() {
            let role = lower[r].trim_end_matches("'s");
            if !ROLES.contains(&role) {
                continue;
            }
            let poss = lower[r - 1].as_str();
            let named_possessor = match poss {
                "my" => match speaker {
                    Some(sp) => Some(sp.to_owned()),
                    None => continue,
                },
                "his" | "her" => None,
                p if p.ends_with("'s") => match self.cast.named(&ws[r - 1].text) {
                    Some(m) => Some(m.id.clone()),
                    None => continue,
                },
                _ => continue,
            };
            let p = r - 1;
            let apposition = names_at
                .iter()
                .rev()
                .find(|(wi, _)| *wi < p && *wi + 4 >= p)
                .and_then(|(wi, id)| {
                    let between: String = s
                        .text
                        .chars()
                        .skip(ws[*wi].end - s.start)
                        .take(ws[p].start - ws[*wi].end)
                        .collect();
                    between.contains(',').then(|| (id.clone(), *wi))
                });
            let copula = || {
                if p == 0 {
                    return None;
                }
                let c = lower[p - 1].as_str();
                if matches!(c, "he's" | "she's") {
                    let who = self.resolve(c.trim_end_matches("'s"), &[])?;
                    return Some((who, p - 1));
                }
                if c == "is" && p >= 2 {
                    let who = self.cast.named(&ws[p - 2].text)?;
                    return Some((who.id.clone(), p - 2));
                }
                None
            };
            let Some((referent, from)) = apposition.or_else(copula) else {
                continue;
            };
            let possessor = named_possessor.or_else(|| self.resolve(poss, &[&referent]));
            let Some(possessor) = possessor.filter(|p| p != &referent) else {
                continue;
            };
            let ev = self.words_evidence(i, s, ws, from, r);
            let edge = Edge::make_id(EdgeKind::SocialRelation, &possessor, &referent);
            self.add_edge(
                EdgeKind::SocialRelation,
                &possessor,
                &referent,
                vec![ev],
                "role word after a possessive, in apposition or after a copula",
            );
            if let Some(&at) = self.edge_index.get(&edge) {
                if let Item::Edge(e) = &mut self.items[at].0 {
                    e.label.get_or_insert_with(|| role.to_owned());
                }
            }
        }
    }

    /// goal of the subject toward the object, unless negated or asked.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn social_goals(
        &mut self,
        i: usize,
        s: &Span,
        ws: &[Span],
        lower: &[String],
        speaker: Option<&str>,
        addressee: Option<&str>,
    ) {
        if s.text.trim_end().ends_with('?') {
            return;
        }
        for k in 1..ws.len().saturating_sub(1) {
            let Some(polarity) = goal_verb(&lower[k]) else {
                continue;
            };
            let mut holder = None;
            let mut negated = false;
            let mut hj = k;
            for j in (k.saturating_sub(5)..k).rev() {
                let w = lower[j].as_str();
                if w.ends_with("n't") || matches!(w, "not" | "never") {
                    negated = true;
                    continue;
                }
                if AUXILIARIES.contains(&w) || ADVERBS.contains(&w) {
                    continue;
                }
                holder = self.person(ws, lower, j, speaker, addressee, &[]);
                hj = j;
                break;
            }
            let Some(holder) = holder.filter(|_| !negated) else {
                continue;
            };
            // `saved her brother`: the pronoun is a possessive, not the person helped.
            if lower
                .get(k + 2)
                .is_some_and(|w| ROLES.contains(&w.trim_end_matches("'s")))
            {
                continue;
            }
            let Some(target) = self
                .person(ws, lower, k + 1, speaker, addressee, &[&holder])
                .filter(|t| t != &holder)
            else {
                continue;
            };
            let ev = self.words_evidence(i, s, ws, hj, k + 1);
            let (who, whom) = (self.display(&holder), self.display(&target));
            let mut node = Node::new(
                format!("mental_state:e{i:04}-{:03}-social_goal", ws[k].start),
                NodeKind::MentalState,
                format!(
                    "{who} wants to {polarity} {whom}: “{}”",
                    gloss(&ev.quote, 60)
                ),
            );
            node.attitude = Some(Attitude::SocialGoal);
            node.explicit = Some(true);
            node.holder = Some(holder.clone());
            node.target = Some(target.clone());
            node.content = Some(format!("{polarity} {whom}"));
            node.order = Some(i);
            node.scene = Some(self.ctx.block.scene);
            node.evidence = vec![ev.clone()];
            let id = self.add_node(node, "help or hinder verb toward another person");
            self.add_edge(
                EdgeKind::About,
                &id,
                &target,
                vec![ev.clone()],
                "the person the goal is toward",
            );
            self.mentals.push(MentalRec {
                id,
                holder,
                attitude: Attitude::SocialGoal,
                order: (i, ws[k].start),
                evidence: ev,
            });
        }
    }
}
