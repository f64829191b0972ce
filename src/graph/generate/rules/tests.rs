use super::*;
use crate::align::Block;
use crate::screenplay::{parse_text, Format, Screenplay};

const SCRIPT: &str = "INT. KITCHEN - DAY\n\n\
    ANNA SMITH (30) waits by the GATE with BEN COLE (40), her brother.\n\n\
    Anna unlocks the gate so that Ben slips out. Anna stops Ben from running. Ben pockets the KEY.\n\n\
    BEN\nLet me go.\n\n\
    ANNA\nI won't help you.\n\n\
    BEN\nThen I will help you.\n\n\
    ANNA\n(lying)\nThe gate was always open.\n";

fn proposal(text: &str) -> (Screenplay, Proposal) {
    let play = parse_text(text, Some(Format::Fountain), None).unwrap();
    let block = Block {
        id: 0,
        elements: [0, play.elements.len() - 1],
        scene: 0,
        start_ms: None,
        end_ms: None,
        keyframes: Vec::new(),
    };
    let entities = BTreeMap::new();
    let ctx = BlockContext {
        film: "t",
        block: &block,
        play: &play,
        entities: &entities,
        max_keyframes: 5,
    };
    let p = RulesGenerator.generate(&ctx).unwrap();
    (play, p)
}

fn edges(p: &Proposal, kind: EdgeKind) -> Vec<Edge> {
    p.items
        .iter()
        .filter_map(|(i, _)| match i {
            Item::Edge(e) if e.kind == kind => Some(e.clone()),
            _ => None,
        })
        .collect()
}

fn node<'p>(p: &'p Proposal, id: &str) -> &'p Node {
    p.items
        .iter()
        .find_map(|(i, _)| match i {
            Item::Node(n) if n.id == id => Some(n),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no node {id}"))
}

#[test]
fn so_that_enables_and_stops_from_prevents_the_named_persons_act() {
    let (_, p) = proposal(SCRIPT);
    let en = edges(&p, EdgeKind::Enables);
    assert_eq!(en.len(), 1, "{en:?}");
    assert!(node(&p, &en[0].source)
        .name
        .starts_with("Anna unlocks the gate"));
    let slips = node(&p, &en[0].target);
    assert_eq!(slips.agent.as_deref(), Some("character:ben"));
    assert!(slips.name.starts_with("Ben slips out"), "{}", slips.name);
    let pr = edges(&p, EdgeKind::Prevents);
    assert_eq!(pr.len(), 1, "{pr:?}");
    let kept = node(&p, &pr[0].target);
    assert_eq!(kept.agent.as_deref(), Some("character:ben"));
    assert!(kept.name.contains("kept from"), "{}", kept.name);
}

#[test]
fn possession_relation_goal_and_concealment_follow_their_cues() {
    let (_, p) = proposal(SCRIPT);
    let own = edges(&p, EdgeKind::Possesses);
    assert_eq!(own.len(), 1, "{own:?}");
    assert_eq!(
        (own[0].source.as_str(), own[0].target.as_str()),
        ("character:ben", "object:key")
    );
    let rel = edges(&p, EdgeKind::SocialRelation);
    assert_eq!(rel.len(), 1, "{rel:?}");
    assert_eq!(
        (
            rel[0].source.as_str(),
            rel[0].target.as_str(),
            rel[0].label.as_deref()
        ),
        ("character:anna", "character:ben", Some("brother"))
    );
    // `I won't help you` is negated; `I will help you` is Ben's goal.
    let goals: Vec<&Node> = p
        .items
        .iter()
        .filter_map(|(i, _)| match i {
            Item::Node(n) if n.attitude == Some(Attitude::SocialGoal) => Some(n),
            _ => None,
        })
        .collect();
    assert_eq!(goals.len(), 1, "{goals:?}");
    assert_eq!(goals[0].holder.as_deref(), Some("character:ben"));
    assert_eq!(goals[0].target.as_deref(), Some("character:anna"));
    // The lie conceals Anna's pretense; Ben, addressed, hears it.
    let hid = edges(&p, EdgeKind::Conceals);
    assert_eq!(hid.len(), 1, "{hid:?}");
    assert_eq!(
        node(&p, &hid[0].target).holder.as_deref(),
        Some("character:anna")
    );
    assert!(edges(&p, EdgeKind::Perceives)
        .iter()
        .any(|e| e.source == "character:ben" && e.target == hid[0].source));
}

#[test]
fn the_schema_auditor_checks_the_new_kinds_against_their_quotes() {
    use crate::graph::audit::SchemaTimeAuditor;
    use crate::graph::Auditor;
    let play = parse_text(SCRIPT, Some(Format::Fountain), None).unwrap();
    let block = Block {
        id: 0,
        elements: [0, play.elements.len() - 1],
        scene: 0,
        start_ms: None,
        end_ms: None,
        keyframes: Vec::new(),
    };
    let entities = BTreeMap::new();
    let ctx = BlockContext {
        film: "t",
        block: &block,
        play: &play,
        entities: &entities,
        max_keyframes: 5,
    };
    let p = RulesGenerator.generate(&ctx).unwrap();
    let mut batch: Vec<Candidate> = p
        .items
        .into_iter()
        .map(|(item, reason)| Candidate {
            id: Candidate::make_id(item.id(), 0),
            block: 0,
            item,
            reason,
            status: Status::Candidate,
            votes: Vec::new(),
        })
        .collect();
    let verdict = |batch: &[Candidate], kind: &str| -> bool {
        let votes = SchemaTimeAuditor.audit(&ctx, batch).unwrap();
        let at = batch
            .iter()
            .position(|c| c.item.kind_label() == kind)
            .unwrap();
        votes[at].accept
    };
    for kind in [
        "edge:social_relation",
        "edge:possesses",
        "edge:conceals",
        "node:mental_state",
    ] {
        assert!(verdict(&batch, kind), "{kind} as proposed");
    }
    let bens = batch
        .iter()
        .find_map(|c| match &c.item {
            Item::Node(n) if n.agent.as_deref() == Some("character:ben") => Some(n.id.clone()),
            _ => None,
        })
        .unwrap();
    for c in &mut batch {
        match &mut c.item {
            Item::Edge(e) if e.kind == EdgeKind::SocialRelation => {
                e.label = Some("sister".to_owned())
            }
            Item::Edge(e) if e.kind == EdgeKind::Possesses => e.target = "object:gate".to_owned(),
            Item::Edge(e) if e.kind == EdgeKind::Conceals => e.source = bens.clone(),
            _ => {}
        }
    }
    batch.retain(|c| {
        !matches!(&c.item, Item::Node(n) if n.kind == NodeKind::MentalState
            && n.attitude != Some(Attitude::SocialGoal))
    });
    for c in &mut batch {
        if let Item::Node(n) = &mut c.item {
            if n.attitude == Some(Attitude::SocialGoal) {
                n.target = n.holder.clone();
            }
        }
    }
    for kind in [
        "edge:social_relation",
        "edge:possesses",
        "edge:conceals",
        "node:mental_state",
    ] {
        assert!(!verdict(&batch, kind), "{kind} tampered");
    }
}
