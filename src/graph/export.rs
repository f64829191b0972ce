//! Exports: the JSON exchange format (docs/graph-format.md; byte-identical for
//! the same inputs and settings), GraphML, DOT and Neo4j CSV.

use std::fmt::Write as _;

use serde::Serialize;

use crate::graph::analysis::Analysis;
use crate::graph::stats::Stats;
use crate::graph::{Graph, Node};

/// The `format` field of the JSON document.
pub const FORMAT: &str = "moviegraph.graph";
/// The `version` field of the JSON document.
pub const VERSION: u32 = 1;

/// The JSON document (field order is the file's order).
#[derive(Debug, Serialize)]
pub struct Document<'a> {
    /// Always [`FORMAT`].
    pub format: &'static str,
    /// Always [`VERSION`].
    pub version: u32,
    /// The film's slug.
    pub film: &'a str,
    /// The build settings.
    pub settings: serde_json::Value,
    /// The construction table and agreement.
    pub stats: &'a Stats,
    /// Chains, cycles, components, pivotal states, timelines.
    pub analysis: &'a Analysis,
    /// Accepted nodes, by id.
    pub nodes: &'a [Node],
    /// Accepted edges, by id.
    pub edges: &'a [crate::graph::Edge],
}

/// The JSON exchange document, pretty-printed, ending in a newline.
pub fn to_json(g: &Graph, settings: &str, stats: &Stats, analysis: &Analysis) -> String {
    let doc = Document {
        format: FORMAT,
        version: VERSION,
        film: &g.film,
        settings: serde_json::from_str(settings).unwrap_or(serde_json::Value::Null),
        stats,
        analysis,
        nodes: &g.nodes,
        edges: &g.edges,
    };
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', " ")
}

/// Graphviz DOT.
pub fn to_dot(g: &Graph) -> String {
    let mut out = format!("digraph \"{}\" {{\n  rankdir=LR;\n", dot_escape(&g.film));
    for n in &g.nodes {
        let _ = writeln!(
            out,
            "  \"{}\" [label=\"{}\", kind=\"{}\"];",
            dot_escape(&n.id),
            dot_escape(&n.name),
            n.kind.as_str()
        );
    }
    for e in &g.edges {
        let _ = writeln!(
            out,
            "  \"{}\" -> \"{}\" [label=\"{}\"];",
            dot_escape(&e.source),
            dot_escape(&e.target),
            e.kind.as_str()
        );
    }
    out.push_str("}\n");
    out
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// GraphML with `kind` and `name` attributes.
pub fn to_graphml(g: &Graph) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n  <key id=\"kind\" for=\"all\" attr.name=\"kind\" attr.type=\"string\"/>\n  <key id=\"name\" for=\"node\" attr.name=\"name\" attr.type=\"string\"/>\n",
    );
    let _ = writeln!(
        out,
        "  <graph id=\"{}\" edgedefault=\"directed\">",
        xml_escape(&g.film)
    );
    for n in &g.nodes {
        let _ = writeln!(
            out,
            "    <node id=\"{}\"><data key=\"kind\">{}</data><data key=\"name\">{}</data></node>",
            xml_escape(&n.id),
            n.kind.as_str(),
            xml_escape(&n.name)
        );
    }
    for e in &g.edges {
        let _ = writeln!(
            out,
            "    <edge id=\"{}\" source=\"{}\" target=\"{}\"><data key=\"kind\">{}</data></edge>",
            xml_escape(&e.id),
            xml_escape(&e.source),
            xml_escape(&e.target),
            e.kind.as_str()
        );
    }
    out.push_str("  </graph>\n</graphml>\n");
    out
}

fn csv(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// Neo4j `neo4j-admin import` CSV: (nodes file, relationships file).
pub fn to_neo4j_csv(g: &Graph) -> (String, String) {
    let mut nodes = String::from("id:ID,name,:LABEL\n");
    for n in &g.nodes {
        let label: String = n
            .kind
            .as_str()
            .split('_')
            .map(|w| {
                let mut c = w.chars();
                c.next()
                    .map(|f| f.to_uppercase().chain(c).collect::<String>())
                    .unwrap_or_default()
            })
            .collect();
        let _ = writeln!(nodes, "{},{},{}", csv(&n.id), csv(&n.name), label);
    }
    let mut rels = String::from(":START_ID,:END_ID,:TYPE\n");
    for e in &g.edges {
        let _ = writeln!(
            rels,
            "{},{},{}",
            csv(&e.source),
            csv(&e.target),
            e.kind.as_str().to_uppercase()
        );
    }
    (nodes, rels)
}
