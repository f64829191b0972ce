//! Flat items: one question a line, the usual shape of flat ToM benchmarks
//! (`trees import --from items`, `trees export --to items`), and the Inspect
//! AI dataset JSONL (`trees export --to inspect`).
//!
//! An item line: `id`, `context`, `question`, `options` (a list of strings,
//! absent for an open question), `answer` (a letter, a list of letters for
//! multiple choice, or the reference text of an open question), `tags` (an
//! object), and optionally `premise` (the counterfactual lead of a follow-up,
//! read before the context) and `keyframes` (image paths). Tags named
//! `category`, `subcategory`, `type`, `group_level`, `belief_goal` and `atoms`
//! fill the tree schema's fields; any other tag is kept and reported on.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;

use serde_json::{json, Map, Value};

use super::{ImportError, Item, ItemAnswer};
use crate::trees::schema::{Category, Format, Node, QuestionType, Tags, Tree};
use crate::trees::validate::label_for;

/// The level-1 category of an item whose tags name none.
pub const DEFAULT_CATEGORY: &str = "Imported";

/// Reads an item JSONL file into one tree per item, in the benchmark `film`.
pub fn read(path: &Path, film: &str) -> Result<Vec<Tree>, ImportError> {
    let text = std::fs::read_to_string(path).map_err(|source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    from_text(&text, path, film)
}

/// Reads item JSONL `text` (named `path` in errors) into one tree per item.
pub fn from_text(text: &str, path: &Path, film: &str) -> Result<Vec<Tree>, ImportError> {
    let mut trees = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let item = parse_line(line, film).map_err(|(id, message)| ImportError::Entry {
            path: path.to_path_buf(),
            at: match id {
                Some(id) => format!("line {} (id {id:?})", i + 1),
                None => format!("line {}", i + 1),
            },
            message,
        })?;
        if !seen.insert(item.id.clone()) {
            return Err(ImportError::Entry {
                path: path.to_path_buf(),
                at: format!("line {} (id {:?})", i + 1, item.id),
                message: "the id is used by an earlier line".into(),
            });
        }
        trees.push(item.into_tree(film));
    }
    if trees.is_empty() {
        return Err(ImportError::File {
            path: path.to_path_buf(),
            message: "no items".into(),
        });
    }
    Ok(trees)
}

/// One line as an item; on error the line's id (when it has one) and the problem.
fn parse_line(line: &str, film: &str) -> Result<Item, (Option<String>, String)> {
    let value: Value =
        serde_json::from_str(line).map_err(|e| (None, format!("not a JSON object: {e}")))?;
    let Value::Object(map) = value else {
        return Err((None, "not a JSON object".into()));
    };
    let id = match map.get("id") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_owned(),
        Some(Value::Number(n)) => n.to_string(),
        _ => return Err((None, "no `id` (a string or a number)".into())),
    };
    let fail = |message: String| (Some(id.clone()), message);
    let text_field = |name: &str| match map.get(name) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
        Some(Value::String(_)) | None | Some(Value::Null) => Err(fail(format!("no `{name}`"))),
        Some(_) => Err(fail(format!("`{name}` is not a string"))),
    };
    let mut context = text_field("context")?;
    let question = text_field("question")?;
    if let Some(premise) = map.get("premise").filter(|v| !v.is_null()) {
        let premise = premise
            .as_str()
            .ok_or_else(|| fail("`premise` is not a string".into()))?;
        context = format!("{}\n\n{context}", premise.trim());
    }
    let answer = map.get("answer").filter(|v| !v.is_null());
    let answer = match map.get("options").filter(|v| !v.is_null()) {
        Some(Value::Array(options)) => {
            let texts: Vec<String> = options
                .iter()
                .map(|o| o.as_str().map(str::to_owned))
                .collect::<Option<_>>()
                .ok_or_else(|| fail("`options` holds something other than strings".into()))?;
            if texts.len() < 2 {
                return Err(fail(format!("{} option(s); at least two", texts.len())));
            }
            let labels: Vec<String> = (0..texts.len()).map(label_for).collect();
            let letter = |v: &Value| -> Result<usize, (Option<String>, String)> {
                let s = v
                    .as_str()
                    .ok_or_else(|| fail("an answer letter is not a string".into()))?;
                labels
                    .iter()
                    .position(|l| l.eq_ignore_ascii_case(s.trim()))
                    .ok_or_else(|| {
                        fail(format!(
                            "answer {s:?} is not a letter of the {} options (A–{})",
                            texts.len(),
                            labels[labels.len() - 1]
                        ))
                    })
            };
            let (chosen, multi) = match answer {
                Some(Value::Array(letters)) if !letters.is_empty() => (
                    letters
                        .iter()
                        .map(letter)
                        .collect::<Result<BTreeSet<_>, _>>()?,
                    true,
                ),
                Some(v @ Value::String(_)) => (BTreeSet::from([letter(v)?]), false),
                _ => {
                    return Err(fail(
                        "no `answer`: a letter, or a list of letters for multiple choice".into(),
                    ))
                }
            };
            ItemAnswer::Choice {
                options: texts
                    .into_iter()
                    .enumerate()
                    .map(|(i, t)| (t, chosen.contains(&i)))
                    .collect(),
                multi,
            }
        }
        Some(_) => return Err(fail("`options` is not a list".into())),
        None => match answer {
            Some(Value::String(r)) if !r.trim().is_empty() => ItemAnswer::Open(r.clone()),
            _ => {
                return Err(fail(
                    "no `answer`: an open question (no options) needs its reference text".into(),
                ))
            }
        },
    };
    let keyframes = match map.get("keyframes").filter(|v| !v.is_null()) {
        None => Vec::new(),
        Some(Value::Array(paths)) => paths
            .iter()
            .map(|p| p.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .ok_or_else(|| fail("`keyframes` holds something other than strings".into()))?,
        Some(_) => return Err(fail("`keyframes` is not a list".into())),
    };
    let (category, question_type, tags) = read_tags(map.get("tags"), film).map_err(fail)?;
    Ok(Item {
        id,
        context,
        question,
        answer,
        category,
        question_type,
        tags,
        keyframes,
    })
}

/// A tag's value as text (a list joined by commas).
fn tag_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(tag_text).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

fn read_tags(tags: Option<&Value>, film: &str) -> Result<(Category, QuestionType, Tags), String> {
    let empty = Map::new();
    let map = match tags {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(map)) => map,
        Some(_) => return Err("`tags` is not an object".into()),
    };
    let mut out = Tags::default();
    let mut category = Category {
        level1: DEFAULT_CATEGORY.into(),
        level2: film.into(),
    };
    let mut question_type = QuestionType::BasicTom;
    for (name, value) in map {
        if value.is_null() {
            continue;
        }
        let text = tag_text(value);
        match name.as_str() {
            "category" => category.level1 = text,
            "subcategory" => category.level2 = text,
            "type" => {
                question_type = match text.as_str() {
                    "basic_tom" => QuestionType::BasicTom,
                    "complex_reasoning" => QuestionType::ComplexReasoning,
                    _ => {
                        return Err(format!(
                            "tag type {text:?} is not basic_tom or complex_reasoning"
                        ))
                    }
                }
            }
            "group_level" => {
                let level = text
                    .trim_start_matches(['L', 'l'])
                    .parse::<u8>()
                    .ok()
                    .filter(|l| (1..=7).contains(l))
                    .ok_or_else(|| format!("tag group_level {text:?} is not L1–L7"))?;
                out.group_level = Some(level);
            }
            "belief_goal" => out.belief_goal = Some(text),
            "atoms" => {
                out.atoms = match value {
                    Value::Array(items) => items.iter().map(tag_text).collect(),
                    _ => text.split(',').map(|a| a.trim().to_owned()).collect(),
                };
                out.atoms.retain(|a| !a.is_empty());
            }
            _ => {
                out.other.insert(name.clone(), text);
            }
        }
    }
    Ok((category, question_type, out))
}

/// The tags of a node as a flat export writes them.
fn node_tags(tree: &Tree, node: &Node) -> Map<String, Value> {
    let mut tags = Map::new();
    tags.insert("category".into(), json!(node.category.level1));
    tags.insert("subcategory".into(), json!(node.category.level2));
    tags.insert("type".into(), json!(node.question_type.as_str()));
    if !tree.is_item() {
        tags.insert("film".into(), json!(tree.film));
        tags.insert("depth".into(), json!(node.depth));
    }
    if let Some(level) = node.tags.group_level {
        tags.insert("group_level".into(), json!(format!("L{level}")));
    }
    if let Some(bg) = &node.tags.belief_goal {
        tags.insert("belief_goal".into(), json!(bg));
    }
    if !node.tags.atoms.is_empty() {
        tags.insert("atoms".into(), json!(node.tags.atoms));
    }
    for (name, value) in &node.tags.other {
        tags.entry(name.clone()).or_insert_with(|| json!(value));
    }
    tags
}

/// The id a node is exported under: `tree/node`, or an imported item's own id.
fn export_id(tree: &Tree, node: &Node) -> String {
    if tree.is_item() && tree.nodes.len() == 1 {
        let prefix = format!("{}/", tree.film);
        return tree.id.strip_prefix(&prefix).unwrap_or(&tree.id).to_owned();
    }
    format!("{}/{}", tree.id, node.id)
}

/// The gold as an item's `answer`: a letter (single), letters (multiple), or
/// the reference text (open).
fn answer_value(node: &Node) -> Value {
    match node.format {
        Format::Single => json!(node.correct_labels().first().copied().unwrap_or_default()),
        Format::Multi => json!(node.correct_labels()),
        Format::Open => json!(node.reference.clone().unwrap_or_default()),
    }
}

/// Writes every node of `trees` as one item line; a follow-up carries its
/// counterfactual lead as `premise`. Returns the items written.
pub fn write_items(out: &mut impl Write, trees: &[Tree]) -> std::io::Result<usize> {
    let mut n = 0;
    for tree in trees {
        for node in &tree.nodes {
            let mut item = Map::new();
            item.insert("id".into(), json!(export_id(tree, node)));
            item.insert("context".into(), json!(node.context.excerpt));
            if let Some(lead) = tree.counterfactual_lead(node) {
                item.insert("premise".into(), json!(lead));
            }
            item.insert("question".into(), json!(node.question));
            if node.format != Format::Open {
                let texts: Vec<&str> = node.options.iter().map(|o| o.text.as_str()).collect();
                item.insert("options".into(), json!(texts));
            }
            item.insert("answer".into(), answer_value(node));
            if !node.context.keyframes.is_empty() {
                item.insert("keyframes".into(), json!(node.context.keyframes));
            }
            item.insert("tags".into(), Value::Object(node_tags(tree, node)));
            serde_json::to_writer(&mut *out, &Value::Object(item))?;
            out.write_all(b"\n")?;
            n += 1;
        }
    }
    Ok(n)
}

/// Writes every node of `trees` as an Inspect AI dataset sample: `input` (the
/// counterfactual lead of a follow-up, the context and the question),
/// `choices` (choice questions), `target` (a letter, letters, or the
/// reference), `id` and `metadata` (format, tree, node and the tags).
pub fn write_inspect(out: &mut impl Write, trees: &[Tree]) -> std::io::Result<usize> {
    let mut n = 0;
    for tree in trees {
        for node in &tree.nodes {
            let mut input = String::new();
            if let Some(lead) = tree.counterfactual_lead(node) {
                input.push_str(&lead);
                input.push_str("\n\n");
            }
            input.push_str(tree.context_heading());
            input.push_str(":\n");
            input.push_str(node.context.excerpt.trim());
            input.push_str("\n\nQuestion: ");
            input.push_str(&node.question);
            let mut sample = Map::new();
            sample.insert("id".into(), json!(export_id(tree, node)));
            sample.insert("input".into(), json!(input));
            if node.format != Format::Open {
                let texts: Vec<&str> = node.options.iter().map(|o| o.text.as_str()).collect();
                sample.insert("choices".into(), json!(texts));
            }
            sample.insert("target".into(), answer_value(node));
            let mut metadata = node_tags(tree, node);
            metadata.insert("format".into(), json!(node.format.as_str()));
            metadata.insert("tree".into(), json!(tree.id));
            metadata.insert("node".into(), json!(node.id));
            if !node.context.keyframes.is_empty() {
                metadata.insert("keyframes".into(), json!(node.context.keyframes));
            }
            sample.insert("metadata".into(), Value::Object(metadata));
            serde_json::to_writer(&mut *out, &Value::Object(sample))?;
            out.write_all(b"\n")?;
            n += 1;
        }
    }
    Ok(n)
}

/// Values a tag takes over `trees`, for summaries (`belief_goal`, `other`).
pub fn tag_values(trees: &[Tree]) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for node in trees.iter().flat_map(|t| &t.nodes) {
        if let Some(bg) = &node.tags.belief_goal {
            out.entry("belief_goal".into())
                .or_default()
                .insert(bg.clone());
        }
        for (name, value) in &node.tags.other {
            out.entry(name.clone()).or_default().insert(value.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> Result<Item, (Option<String>, String)> {
        parse_line(line, "tomi")
    }

    #[test]
    fn answers_set_the_format() {
        let single =
            one(r#"{"id":"a","context":"c","question":"q?","options":["x","y"],"answer":"b"}"#)
                .unwrap();
        assert_eq!(
            single.answer,
            ItemAnswer::Choice {
                options: vec![("x".into(), false), ("y".into(), true)],
                multi: false
            }
        );
        let multi = one(
            r#"{"id":2,"context":"c","question":"q?","options":["x","y","z"],"answer":["A","C"]}"#,
        )
        .unwrap();
        assert_eq!(multi.id, "2");
        assert!(
            matches!(multi.answer, ItemAnswer::Choice { multi: true, ref options } if options[0].1 && !options[1].1 && options[2].1)
        );
        let open =
            one(r#"{"id":"o","context":"c","question":"q?","answer":"Sally thinks so"}"#).unwrap();
        assert_eq!(open.answer, ItemAnswer::Open("Sally thinks so".into()));
        assert_eq!(open.category.level1, DEFAULT_CATEGORY);
        assert_eq!(open.category.level2, "tomi");
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        for (line, says) in [
            (r#"{"context":"c","question":"q","answer":"x"}"#, "no `id`"),
            (r#"{"id":"a","question":"q","answer":"x"}"#, "no `context`"),
            (
                r#"{"id":"a","context":"c","question":"q","options":["x","y"],"answer":"D"}"#,
                "not a letter",
            ),
            (
                r#"{"id":"a","context":"c","question":"q","options":["x","y"]}"#,
                "no `answer`",
            ),
            (
                r#"{"id":"a","context":"c","question":"q","options":["x"],"answer":"A"}"#,
                "at least two",
            ),
            (
                r#"{"id":"a","context":"c","question":"q"}"#,
                "reference text",
            ),
            (
                r#"{"id":"a","context":"c","question":"q","answer":"x","tags":{"group_level":"L9"}}"#,
                "L1–L7",
            ),
            (r#"[1]"#, "not a JSON object"),
        ] {
            let (_, message) = one(line).unwrap_err();
            assert!(message.contains(says), "{line}: {message}");
        }
    }

    #[test]
    fn tags_fill_the_schema_and_keep_the_rest() {
        let item = one(
            r#"{"id":"a","context":"c","question":"q","answer":"x","premise":"Suppose so.",
               "tags":{"category":"Theory of Mind","subcategory":"False Belief","type":"complex_reasoning",
                       "group_level":"L2","belief_goal":"belief","atoms":["beliefs"],"order":2,"ability":"first-order"}}"#,
        )
        .unwrap();
        assert_eq!(item.context, "Suppose so.\n\nc");
        assert_eq!(item.category.level2, "False Belief");
        assert_eq!(item.question_type, QuestionType::ComplexReasoning);
        assert_eq!(item.tags.group_level, Some(2));
        assert_eq!(item.tags.atoms, ["beliefs"]);
        assert_eq!(item.tags.other.get("order").map(String::as_str), Some("2"));
        assert_eq!(
            item.tags.other.get("ability").map(String::as_str),
            Some("first-order")
        );
    }
}
