use super::*;
use crate::graph::OneBlock;
use crate::screenplay::Screenplay;

const SCRIPT: &str = "INT. KITCHEN - DAY\n\n\
    ANNA SMITH (30) waits by the GATE with BEN COLE (40), her brother.\n\n\
    Anna unlocks the gate so that Ben slips out. Anna stops Ben from running. Ben pockets the KEY.\n\n\
    BEN\nLet me go.\n\n\
    ANNA\nI won't help you.\n\n\
    BEN\nThen I will help you.\n\n\
    ANNA\n(lying)\nThe gate was always open.\n";

fn proposal(text: &str) -> (Screenplay, Proposal) {
    let one = OneBlock::parse(text);
    let p = RulesGenerator.generate(&one.ctx()).unwrap();
    (one.play, p)
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
    let one = OneBlock::parse(SCRIPT);
    let ctx = one.ctx();
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

fn states(p: &Proposal) -> Vec<&Node> {
    p.items
        .iter()
        .filter_map(|(i, _)| match i {
            Item::Node(n) if n.kind == NodeKind::MentalState => Some(n),
            _ => None,
        })
        .collect()
}

const MINDS: &str = "INT. SHOP - NIGHT\n\n\
    ANNA SMITH (30) and BEN COLE (40) stand by the SAFE.\n\n\
    ANNA\n(lying)\nThe ring is in the bank.\n\n\
    Ben believes her. Ben doesn't know the ring has left the safe.\n\n\
    BEN\nHe thinks I don't know when he's lying. I'll sell the boat tomorrow.\n\n\
    ANNA\nI don't want to be right about him.\n\n\
    Ben thinks she means the key. She means the money.\n";

#[test]
fn doesnt_know_is_knowledge_negated_never_an_inverted_false_belief() {
    let (_, p) = proposal(MINDS);
    let ss = states(&p);
    let k = ss
        .iter()
        .find(|n| n.attitude == Some(Attitude::Knowledge))
        .expect("a knowledge state");
    assert_eq!(k.holder.as_deref(), Some("character:ben"));
    assert!(k.negated, "{k:?}");
    assert_eq!(k.truth, None);
    assert_eq!(k.content.as_deref(), Some("the ring has left the safe"));
    // `I don't want to…` is a desire, negated, with the content as said.
    let d = ss
        .iter()
        .find(|n| n.attitude == Some(Attitude::Desire))
        .expect("a desire");
    assert!(
        d.negated && d.content.as_deref().unwrap().contains("right about"),
        "{d:?}"
    );
}

#[test]
fn false_beliefs_come_only_from_what_the_script_shows() {
    let (_, p) = proposal(MINDS);
    let beliefs: Vec<&Node> = states(&p)
        .into_iter()
        .filter(|n| n.attitude == Some(Attitude::Belief))
        .collect();
    // Believing the liar: false, with the lie's words, about her pretense.
    let liar = beliefs
        .iter()
        .find(|n| n.content.as_deref() == Some("The ring is in the bank."))
        .unwrap_or_else(|| panic!("belief in the lie: {beliefs:#?}"));
    assert_eq!(liar.truth, Some(false));
    assert!(
        liar.target.as_deref().unwrap().ends_with("pretense"),
        "{liar:?}"
    );
    // Set against the next sentence ("She means the money"): false.
    let means = beliefs
        .iter()
        .find(|n| {
            n.content
                .as_deref()
                .is_some_and(|c| c.contains("means the key"))
        })
        .expect("the misreading");
    assert_eq!(means.truth, Some(false));
    // A line's report of another mind is the speaker's belief, truth open.
    let report = beliefs
        .iter()
        .find(|n| n.holder.as_deref() == Some("character:ben") && n.truth.is_none())
        .expect("Ben's report of a mind");
    assert!(!report.negated);
    assert!(
        report.content.as_deref().unwrap().contains("thinks"),
        "{report:?}"
    );
}

#[test]
fn a_commitment_is_the_speakers_intention() {
    let (_, p) = proposal(MINDS);
    let i = states(&p)
        .into_iter()
        .find(|n| n.attitude == Some(Attitude::Intention))
        .expect("an intention");
    assert_eq!(i.holder.as_deref(), Some("character:ben"));
    assert_eq!(i.content.as_deref(), Some("sell the boat tomorrow"));
}

#[test]
fn a_recorded_greeting_tells_nobody_anything() {
    let script = "INT. FLAT - NIGHT\n\nANNA SMITH (30) dials.\n\n\
        BEN (V.O.)\n(voicemail)\nIt's Ben. You know what to do.\n\n\
        ANNA\nBen, call me.\n";
    let (_, p) = proposal(script);
    assert!(states(&p).is_empty(), "{:?}", states(&p));
}

#[test]
fn events_that_follow_each_other_are_ordered_not_caused() {
    let (_, p) = proposal(SCRIPT);
    assert!(edges(&p, EdgeKind::Causes).is_empty());
    assert!(edges(&p, EdgeKind::Triggers).is_empty());
    assert!(!edges(&p, EdgeKind::Precedes).is_empty());
    // The emotion that makes a decision motivates the act before it.
    let script = "INT. PIER - DUSK\n\nANNA SMITH (30) faces BEN COLE (40).\n\n\
        BEN\nLend me the money.\n\nANNA\nNo. Not this time.\n\n\
        Jealousy made the decision for her.\n";
    let (_, p) = proposal(script);
    let m = edges(&p, EdgeKind::Motivates);
    assert_eq!(m.len(), 1, "{m:?}");
    assert_eq!(node(&p, &m[0].source).attitude, Some(Attitude::Emotion));
    assert_eq!(node(&p, &m[0].target).act, Some(Act::Refusal));
}

#[test]
fn a_narrated_realization_with_nothing_after_it_states_nothing() {
    // What Ben realizes is in the picture, not the words: the line before is
    // not its content.
    let script = "INT. SHOP - NIGHT\n\nANNA SMITH (30) and BEN COLE (40) stand by the SAFE.\n\n\
        BEN\nWhere's my ring?\n\n\
        ANNA\nVery moving.\n\n\
        Ben sees the ring on her finger, and realizes.\n";
    let (_, p) = proposal(script);
    let knowing: Vec<&Node> = states(&p)
        .into_iter()
        .filter(|n| n.attitude == Some(Attitude::Knowledge))
        .collect();
    assert!(
        knowing
            .iter()
            .all(|n| n.evidence.iter().all(|ev| !ev.quote.contains("realizes"))),
        "{knowing:#?}"
    );
}
