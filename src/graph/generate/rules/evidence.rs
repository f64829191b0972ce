//! Evidence and bookkeeping: a quote (an element's character range) as
//! [`Evidence`], and adding nodes and edges to the block's proposal once each.

use super::Extractor;
use crate::graph::schema::*;
use crate::text::spans::Span;

impl Extractor<'_, '_> {
    pub(super) fn evidence(
        &self,
        element: usize,
        start: usize,
        end: usize,
        quote: &str,
    ) -> Evidence {
        Evidence {
            block: self.block,
            element,
            start,
            end,
            quote: quote.to_owned(),
            keyframes: Vec::new(),
        }
    }

    pub(super) fn span_evidence(&self, element: usize, s: &Span) -> Evidence {
        self.evidence(element, s.start, s.end, &s.text)
    }

    /// Evidence for words `a..=b` of a sentence.
    pub(super) fn words_evidence(
        &self,
        i: usize,
        s: &Span,
        ws: &[Span],
        a: usize,
        b: usize,
    ) -> Evidence {
        let text: String = s
            .text
            .chars()
            .skip(ws[a].start - s.start)
            .take(ws[b].end - ws[a].start)
            .collect();
        self.evidence(i, ws[a].start, ws[b].end, &text)
    }

    pub(super) fn add_node(&mut self, mut node: Node, reason: &str) -> String {
        let id = node.id.clone();
        if let Some(&i) = self.node_index.get(&id) {
            if let Item::Node(have) = &mut self.items[i].0 {
                for ev in node.evidence {
                    if have.evidence.len() < 3 && !have.evidence.contains(&ev) {
                        have.evidence.push(ev);
                    }
                }
            }
            return id;
        }
        node.blocks = vec![self.block];
        let others = self.pronoun_readings(&node);
        if !others.is_empty() {
            self.readings.push((id.clone(), others));
        }
        self.node_index.insert(id.clone(), self.items.len());
        self.items.push((Item::Node(node), reason.to_owned()));
        id
    }

    pub(super) fn add_edge(
        &mut self,
        kind: EdgeKind,
        source: &str,
        target: &str,
        ev: Vec<Evidence>,
        reason: &str,
    ) {
        if source.is_empty() || target.is_empty() {
            return;
        }
        let mut edge = Edge::new(kind, source, target);
        if self.edge_index.contains_key(&edge.id) {
            return;
        }
        edge.blocks = vec![self.block];
        edge.evidence = ev;
        edge.evidence.sort();
        edge.evidence.dedup();
        self.edge_index.insert(edge.id.clone(), self.items.len());
        self.items.push((Item::Edge(edge), reason.to_owned()));
    }
}
