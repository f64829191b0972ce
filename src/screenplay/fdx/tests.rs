use super::*;

/// `<FinalDraft><Content>…</Content></FinalDraft>` around `body`, starting on line 1.
fn doc(body: &str) -> String {
    format!("<FinalDraft DocumentType=\"Script\" Version=\"4\">\n<Content>\n{body}\n</Content>\n</FinalDraft>\n")
}

fn para(kind: &str, text: &str) -> String {
    format!("<Paragraph Type=\"{kind}\"><Text>{text}</Text></Paragraph>")
}

fn kinds_texts(reading: &Reading) -> Vec<(ElementKind, &str)> {
    reading
        .elements
        .iter()
        .map(|e| (e.kind, e.text.as_str()))
        .collect()
}

fn err(text: &str) -> FdxError {
    match read(text) {
        Ok(r) => panic!("expected an error, got {:?}", kinds_texts(&r)),
        Err(e) => e,
    }
}

#[test]
fn every_paragraph_type() {
    use ElementKind::*;
    let body = [
        para("Scene Heading", "INT. KITCHEN - NIGHT"),
        para("Action", "Rain."),
        para("Character", "MOM (O.S.)"),
        para("Parenthetical", "(calling)"),
        para("Dialogue", "Dinner!"),
        para("Transition", "CUT TO:"),
        para("Shot", "CLOSE ON THE KEY"),
        para("General", "A general paragraph."),
        para("New Act", "ACT TWO"),
        para("End of Act", "END OF ACT TWO"),
        para("End Of Act", "END ACT"),
        para("Lyric", "La la la"),
        para("Singing", "Do re mi"),
        para("Cast List", "MOM"),
        para("Cast List", "DAD"),
        "<Paragraph Type=\"Action\" Alignment=\"Center\"><Text>THE END</Text></Paragraph>".into(),
        "<Paragraph><Text>No type.</Text></Paragraph>".into(),
    ]
    .join("\n");
    let r = read(&doc(&body)).unwrap();
    assert_eq!(
        kinds_texts(&r),
        vec![
            (SceneHeading, "INT. KITCHEN - NIGHT"),
            (Action, "Rain."),
            (Character, "MOM (O.S.)"),
            (Parenthetical, "(calling)"),
            (Dialogue, "Dinner!"),
            (Transition, "CUT TO:"),
            (Shot, "CLOSE ON THE KEY"),
            (Action, "A general paragraph."),
            (Centered, "ACT TWO"),
            (Centered, "END OF ACT TWO"),
            (Centered, "END ACT"),
            (Lyric, "La la la"),
            (Lyric, "Do re mi"),
            (Action, "MOM"),
            (Action, "DAD"),
            (Centered, "THE END"),
            (Action, "No type."),
        ]
    );
    // Each element's lines are the paragraph's own line (line 1 is <FinalDraft>, 2 <Content>).
    assert_eq!(r.elements[0].lines, LineSpan::line(3));
    assert_eq!(r.elements[16].lines, LineSpan::line(19));
    assert_eq!(r.diagnostics.len(), 2, "{:?}", r.diagnostics);
    assert_eq!(r.diagnostics[0].line, 16);
    assert!(r.diagnostics[0].message.contains("\"Cast List\""));
    assert!(r.diagnostics[0].message.contains("2 such"));
    assert!(r.diagnostics[1].message.contains("without a Type"));
    assert!(r
        .diagnostics
        .iter()
        .all(|d| d.severity == crate::screenplay::Severity::Info));
}

#[test]
fn text_runs_styles_and_line_breaks() {
    let body = r#"<Paragraph Type="Action">
  <Text Style="Bold">FADE IN:</Text>
</Paragraph>
<Paragraph Type="Dialogue">
  <Text>Then let's retire them.
</Text>
  <Text Style="Underline">Permanently</Text>
  <Text>.  </Text>
  <DynamicLabel Type="Page #"/>
  <Tabstops><Tabstop Position="6.00" Type="Left"/></Tabstops>
</Paragraph>
<Paragraph Type="Action"><Text>   Indented	tab   </Text><Text/></Paragraph>
<Paragraph Type="Action"><Text><![CDATA[a <raw> & run]]></Text></Paragraph>"#;
    let r = read(&doc(body)).unwrap();
    assert_eq!(
        kinds_texts(&r),
        vec![
            (ElementKind::Action, "FADE IN:"),
            (
                ElementKind::Dialogue,
                "Then let's retire them.\nPermanently."
            ),
            (ElementKind::Action, "Indented\ttab"),
            (ElementKind::Action, "a <raw> & run"),
        ]
    );
    assert_eq!(r.elements[0].lines, LineSpan::new(3, 5));
    assert_eq!(r.elements[1].lines, LineSpan::new(6, 13));
}

#[test]
fn scene_numbers() {
    let body = r#"<Paragraph Type="Scene Heading" Number="12A"><Text>INT. A - DAY</Text></Paragraph>
<Paragraph Number="" Type="Scene Heading"><Text>INT. B - DAY</Text></Paragraph>
<Paragraph Type="Action" Number="3"><Text>Numbers only go on headings.</Text></Paragraph>"#;
    let r = read(&doc(body)).unwrap();
    let numbers: Vec<_> = r
        .elements
        .iter()
        .map(|e| e.scene_number.as_deref())
        .collect();
    assert_eq!(numbers, vec![Some("12A"), None, None]);
    assert_eq!(r.elements[0].text, "INT. A - DAY");
}

#[test]
fn dual_dialogue_marks_speeches_only() {
    let body = r#"<Paragraph Type="Action"><Text>They look.</Text></Paragraph>
<Paragraph Type="General">
  <DualDialogue>
    <Paragraph Type="Character"><Text>STEEL</Text></Paragraph>
    <Paragraph Type="Dialogue"><Text>Screw retirement.</Text></Paragraph>
    <Paragraph Type="Character"><Text>BRICK</Text></Paragraph>
    <Paragraph Type="Parenthetical"><Text>(too)</Text></Paragraph>
    <Paragraph Type="Dialogue"><Text>Screw it.</Text></Paragraph>
  </DualDialogue>
  <Text></Text>
</Paragraph>
<Paragraph Type="Dialogue"><Text>Not dual.</Text></Paragraph>"#;
    let r = read(&doc(body)).unwrap();
    let duals: Vec<_> = r.elements.iter().map(|e| (e.kind, e.dual)).collect();
    use ElementKind::*;
    assert_eq!(
        duals,
        vec![
            (Action, false),
            (Character, true),
            (Dialogue, true),
            (Character, true),
            (Parenthetical, true),
            (Dialogue, true),
            (Dialogue, false),
        ]
    );
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
}

#[test]
fn notes_and_synopses() {
    let body = r#"<Paragraph Type="Scene Heading">
  <SceneProperties Length="1" Page="1">
    <SceneArcBeats><CharacterArcBeat Name="ALAN"><Paragraph><Text>arc beat</Text></Paragraph></CharacterArcBeat></SceneArcBeats>
    <Summary><Paragraph><Text>The synopsis.</Text></Paragraph></Summary>
  </SceneProperties>
  <ScriptNote ID="1"><Paragraph><Text>Note on the heading.</Text></Paragraph><Paragraph><Text>Second line.</Text></Paragraph></ScriptNote>
  <Text>INT. SCENE - DAY</Text>
</Paragraph>
<Paragraph Type="Action"><Text>Action.</Text></Paragraph>
</Content>
<ScriptNotes>
  <ScriptNote Range="0,5" Writer="Ed"><Paragraph><Text>A block note.</Text></Paragraph></ScriptNote>
  <ScriptNote>Plain note text.</ScriptNote>
</ScriptNotes>
<Content>"#;
    let r = read(&doc(body)).unwrap();
    use ElementKind::*;
    assert_eq!(
        kinds_texts(&r),
        vec![
            (SceneHeading, "INT. SCENE - DAY"),
            (Synopsis, "The synopsis."),
            (Note, "Note on the heading.\nSecond line."),
            (Action, "Action."),
            (Note, "A block note."),
            (Note, "Plain note text."),
        ]
    );
}

#[test]
fn title_page_comes_first() {
    let text = r#"<?xml version="1.0" encoding="UTF-8" standalone="no" ?>
<FinalDraft DocumentType="Script" Template="No" Version="4">
  <Content>
    <Paragraph Type="Action"><Text>Story.</Text></Paragraph>
  </Content>
  <TitlePage>
    <HeaderAndFooter><Header><Paragraph><Text>HEADER</Text></Paragraph></Header></HeaderAndFooter>
    <Content>
      <Paragraph Alignment="Center"><Text></Text></Paragraph>
      <Paragraph Alignment="Center"><Text Style="Bold">THE SECOND KEY</Text></Paragraph>
      <Paragraph Alignment="Center"><Text>Written by</Text></Paragraph>
      <Paragraph Alignment="Center"><Text>Mara Lind</Text></Paragraph>
      <Paragraph Alignment="Left"><Text>mara@example.com</Text></Paragraph>
      <Paragraph Alignment="Right"><Text>June 1, 2024</Text></Paragraph>
    </Content>
  </TitlePage>
</FinalDraft>"#;
    let r = read(text).unwrap();
    let got: Vec<_> = r
        .elements
        .iter()
        .map(|e| (e.kind, e.key.as_deref(), e.text.as_str(), e.lines.first))
        .collect();
    use ElementKind::*;
    assert_eq!(
        got,
        vec![
            (Title, Some("title"), "THE SECOND KEY", 10),
            (Title, Some("credit"), "Written by", 11),
            (Title, Some("author"), "Mara Lind", 12),
            (Title, Some("contact"), "mara@example.com", 13),
            (Title, Some("draft date"), "June 1, 2024", 14),
            (Action, None, "Story.", 4),
        ]
    );
}

#[test]
fn page_breaks_except_before_the_first_paragraph() {
    let body = r#"<Paragraph Type="Action" StartsNewPage="Yes"><Text>First.</Text></Paragraph>
<Paragraph Type="Action" StartsNewPage="No"><Text>Second.</Text></Paragraph>
<Paragraph Type="Scene Heading" StartsNewPage="Yes"><Text>INT. A - DAY</Text></Paragraph>"#;
    let r = read(&doc(body)).unwrap();
    use ElementKind::*;
    assert_eq!(
        kinds_texts(&r),
        vec![
            (Action, "First."),
            (Action, "Second."),
            (PageBreak, ""),
            (SceneHeading, "INT. A - DAY")
        ]
    );
    assert_eq!(r.elements[2].lines, LineSpan::line(5));
}

#[test]
fn consecutive_dialogue_paragraphs_are_one_speech() {
    let body = [
        para("Character", "DEALER"),
        para("Dialogue", "Dealer gets a seven."),
        "<Paragraph Type=\"Dialogue\">\n</Paragraph>".into(),
        para("Dialogue", "Hit or stand sir?"),
        para("Dialogue", "Well?"),
        para("Action", "He waits."),
        para("Dialogue", "Sir?"),
    ]
    .join("\n");
    let r = read(&doc(&body)).unwrap();
    use ElementKind::*;
    assert_eq!(
        kinds_texts(&r),
        vec![
            (Character, "DEALER"),
            (Dialogue, "Dealer gets a seven.\n\nHit or stand sir?\nWell?"),
            (Action, "He waits."),
            (Dialogue, "Sir?"),
        ]
    );
    assert_eq!(r.elements[1].lines, LineSpan::new(4, 8));
}

#[test]
fn entities_predefined_and_numeric_only() {
    let body = para(
        "Action",
        "Tom &amp; Jerry &lt;3 &gt; &quot;hi&quot; &apos;s We&#x27;re caf&#233;",
    );
    let r = read(&doc(&body)).unwrap();
    assert_eq!(r.elements[0].text, "Tom & Jerry <3 > \"hi\" 's We're café");

    let e = err(&doc(&format!("\n\n{}", para("Action", "a &custom; b"))));
    assert_eq!(e.line, 5);
    assert!(e.message.contains("&custom;"), "{}", e.message);

    let e = err(&doc(&para("Action", "AT&T")));
    assert_eq!(e.line, 3);
    assert!(e.message.contains("&amp;"), "{}", e.message);

    let e = err(&doc(&para("Action", "&#0;")));
    assert_eq!(e.line, 3);

    let e = err(&doc(
        "<Paragraph Type=\"&bogus;\"><Text>x</Text></Paragraph>",
    ));
    assert_eq!(e.line, 3);
    assert!(e.message.contains("&bogus;"));
}

#[test]
fn doctype_is_ignored_and_entities_never_expand() {
    let declared_unused = format!(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE FinalDraft [\n<!ENTITY name \"EXPANDED\">\n<!ENTITY ext SYSTEM \"file:///etc/passwd\">\n]>\n{}",
        doc(&para("Action", "plain"))
    );
    let r = read(&declared_unused).unwrap();
    assert_eq!(r.elements[0].text, "plain");
    assert_eq!(r.diagnostics.len(), 1);
    assert_eq!(r.diagnostics[0].line, 2);

    let used = declared_unused.replace("plain", "&name; and &ext;");
    let e = err(&used);
    assert!(e.message.contains("&name;"), "{}", e.message);
    assert_eq!(e.line, 8);
}

#[test]
fn billion_laughs_fails_fast() {
    let mut text =
        String::from("<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n");
    for i in 1..10 {
        let prev = if i == 1 {
            "lol".to_string()
        } else {
            format!("lol{}", i - 1)
        };
        text.push_str(&format!(
            " <!ENTITY lol{i} \"{}\">\n",
            format!("&{prev};").repeat(10)
        ));
    }
    text.push_str("]>\n<FinalDraft><Content><Paragraph Type=\"Action\"><Text>&lol9;</Text></Paragraph></Content></FinalDraft>\n");
    let started = std::time::Instant::now();
    let e = err(&text);
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
    assert!(e.message.contains("&lol9;"));
    assert_eq!(e.line, 14);
}

#[test]
fn malformed_xml_is_an_error_with_its_line() {
    // Mismatched end tag: reported where it is.
    let e = err(&doc("<Paragraph Type=\"Action\">\n<Text>Hi\n</Paragraph>"));
    assert_eq!(e.line, 5, "{e}");
    assert!(
        e.message.contains("</Paragraph>") && e.message.contains("</Text>"),
        "{e}"
    );

    // Unclosed at the end of the file: reported at the element left open.
    let e = err("<FinalDraft>\n<Content>\n<Paragraph Type=\"Action\">\n<Text>Hi</Text>\n");
    assert_eq!(e.line, 3, "{e}");
    assert!(
        e.message.contains("<Paragraph>") && e.message.contains("never closed"),
        "{e}"
    );

    // Truncated inside a tag.
    let e = err("<FinalDraft>\n<Content>\n<Paragraph Type=\"Act");
    assert_eq!(e.line, 3, "{e}");

    // A closing tag with nothing open.
    let e = err("<FinalDraft></FinalDraft>\n</Content>");
    assert_eq!(e.line, 2, "{e}");

    // Not XML at all.
    let e = err("INT. KITCHEN - NIGHT\n\nMara waits.\n");
    assert_eq!(e.line, 1);
    assert!(e.message.contains("FinalDraft"), "{e}");

    // Another root.
    let e = err("<?xml version=\"1.0\"?>\n<html><body/></html>");
    assert_eq!(e.line, 2);
    assert!(e.message.contains("<html>"), "{e}");

    // Two roots, text after the root.
    assert_eq!(err("<FinalDraft/>\n<FinalDraft/>").line, 2);
    assert_eq!(err("<FinalDraft/>\n\ntrailing words").line, 3);
    assert_eq!(err("\n  garbage <FinalDraft/>").line, 2);

    // Nothing at all.
    assert!(err("").message.contains("no <FinalDraft>"));
    assert!(err("<?xml version=\"1.0\"?>\n<!-- only a comment -->\n")
        .message
        .contains("no <FinalDraft>"));

    // Bad attributes, reported on their own line.
    let e = err(&doc("<Paragraph\n  Type=Action><Text>x</Text></Paragraph>"));
    assert_eq!(e.line, 4, "{e}");
    let e = err(&doc(
        "<Paragraph Type=\"Action\" Type=\"Dialogue\"><Text>x</Text></Paragraph>",
    ));
    assert_eq!(e.line, 3, "{e}");

    // A DOCTYPE or declaration inside the document.
    assert_eq!(err("<FinalDraft>\n<!DOCTYPE x>\n</FinalDraft>").line, 2);
    assert_eq!(
        err("<FinalDraft>\n<?xml version=\"1.0\"?>\n</FinalDraft>").line,
        2
    );
}

#[test]
fn crlf_and_lone_cr_count_as_line_breaks() {
    let crlf = doc(&format!("\n{}", para("Action", "one"))).replace('\n', "\r\n");
    assert_eq!(read(&crlf).unwrap().elements[0].lines, LineSpan::line(4));
    let cr = crlf.replace("\r\n", "\r");
    assert_eq!(read(&cr).unwrap().elements[0].lines, LineSpan::line(4));
    let multi = doc("<Paragraph Type=\"Action\"><Text>a\r\nb\rc</Text></Paragraph>");
    assert_eq!(read(&multi).unwrap().elements[0].text, "a\nb\nc");
}

#[test]
fn odd_but_well_formed_documents_are_read() {
    // A byte-order mark left in the text.
    let r = read(&format!("\u{feff}{}", doc(&para("Action", "x")))).unwrap();
    assert_eq!(kinds_texts(&r), vec![(ElementKind::Action, "x")]);

    // No <Content>: nothing to read, and a warning saying so.
    let r = read("<FinalDraft DocumentType=\"Script\"/>").unwrap();
    assert!(r.elements.is_empty());
    assert_eq!(
        r.diagnostics[0].severity,
        crate::screenplay::Severity::Warning
    );

    // A paragraph nested in a paragraph is kept, with a warning; a note
    // straight in <Content> stays where it is.
    let r = read(&doc(
        "<Paragraph Type=\"Action\"><Text>Outer.</Text>\n<Paragraph Type=\"Dialogue\"><Text>Inner.</Text></Paragraph></Paragraph>\n<ScriptNote><Text>Loose note.</Text></ScriptNote>",
    ))
    .unwrap();
    use ElementKind::*;
    assert_eq!(
        kinds_texts(&r),
        vec![
            (Dialogue, "Inner."),
            (Action, "Outer."),
            (Note, "Loose note.")
        ]
    );
    assert_eq!(r.diagnostics.len(), 1);
    assert_eq!(r.diagnostics[0].line, 4);
}

#[test]
fn skipped_parts_are_not_script() {
    let text = r#"<FinalDraft>
<Content><Paragraph Type="Action"><Text>Kept.</Text></Paragraph></Content>
<HeaderAndFooter><Header><Paragraph><Text>Header</Text></Paragraph></Header></HeaderAndFooter>
<Watermarking><DynamicContent><Paragraph><Text>DRAFT</Text></Paragraph></DynamicContent></Watermarking>
<ElementSettings Type="Action"><ParagraphSpec Alignment="Left"/></ElementSettings>
<SmartType><Characters><Character>MARA</Character></Characters></SmartType>
</FinalDraft>"#;
    let r = read(text).unwrap();
    assert_eq!(kinds_texts(&r), vec![(ElementKind::Action, "Kept.")]);
}

#[test]
fn never_panics_on_damaged_input() {
    let sample = format!(
        "<?xml version=\"1.0\"?>\n{}",
        doc(&[
            para("Scene Heading", "INT. A &amp; B - DAY"),
            "<Paragraph Type=\"General\"><DualDialogue>".into(),
            para("Character", "A"),
            para("Dialogue", "Caf&#233;"),
            "</DualDialogue></Paragraph>".into(),
            "<Paragraph Type=\"Action\"><ScriptNote><Paragraph><Text>n</Text></Paragraph></ScriptNote><Text>x</Text></Paragraph>".into(),
        ]
        .join("\n"))
    );
    // Every prefix, cut at character boundaries.
    for (i, _) in sample.char_indices() {
        let _ = read(&sample[..i]);
    }
    // Deterministic byte damage: replace, delete, duplicate.
    let bytes = sample.as_bytes();
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let alphabet = b"<>/&;#\"'=![]-?x \n\r";
    for _ in 0..3000 {
        let mut damaged = bytes.to_vec();
        for _ in 0..(next() % 4 + 1) {
            let at = (next() as usize) % damaged.len();
            match next() % 3 {
                0 => damaged[at] = alphabet[(next() as usize) % alphabet.len()],
                1 => {
                    damaged.remove(at);
                }
                _ => {
                    let b = damaged[at];
                    damaged.insert(at, b);
                }
            }
        }
        if let Ok(text) = std::str::from_utf8(&damaged) {
            let _ = read(text);
        }
    }
}
