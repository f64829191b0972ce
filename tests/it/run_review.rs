//! `run` and people's review: a rebuild never discards their decisions, and
//! a review with unchanged inputs re-exports the verified graph and remakes
//! what follows from it.

use crate::run::{action_of, actions, command, read, run, workspace, ARGS, FILM, GRAPH, REPORTS};

#[test]
fn a_rebuild_that_would_discard_peoples_review_decisions_is_refused_and_keeps_them() {
    use moviegraph::store::{DecisionRow, OriginalRow, Store, VoteRow};
    let ws = workspace();
    let cwd = ws.path();
    run(cwd, &ARGS);
    // A person decides on one candidate of the build.
    {
        let store = Store::open(&cwd.join("w.db")).unwrap();
        let (build, _) =
            moviegraph::workspace::graph::latest_build(&store, "the-second-key").unwrap();
        let candidate = store.graph_candidate_rows(build).unwrap()[0].id.clone();
        let decision = DecisionRow {
            id: "nonce-1".into(),
            candidate,
            reviewer: "ana".into(),
            at_ms: 1,
            queue: "escalated".into(),
            decision: "{\"decision\":\"accept\"}".into(),
        };
        let vote = VoteRow {
            judge: "ana".into(),
            role: "human".into(),
            accept: true,
            rationale: "accept".into(),
        };
        let keep = |o: &OriginalRow, _: &[DecisionRow]| (o.status.clone(), o.item.clone());
        assert!(store.review_decide(build, &decision, &vote, &keep).unwrap());
    }
    // New subtitles: the graph would be rebuilt, which would discard the decision.
    let srt = cwd.join(FILM).join("subtitles.srt");
    let subs = std::fs::read_to_string(&srt).unwrap();
    std::fs::write(&srt, subs + "\n").unwrap();
    let out = command(cwd, &ARGS).output().unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("1 review decision") && said.contains("--decisions"),
        "{said}"
    );
    let store = Store::open(&cwd.join("w.db")).unwrap();
    let (build, _) = moviegraph::workspace::graph::latest_build(&store, "the-second-key").unwrap();
    assert_eq!(
        store.review_decisions(build).unwrap().len(),
        1,
        "the decision is kept"
    );
}

#[test]
fn a_review_with_unchanged_inputs_reexports_the_verified_graph_and_remakes_what_follows() {
    use moviegraph::store::{DecisionRow, OriginalRow, Store, VoteRow};
    let ws = workspace();
    let cwd = ws.path();
    run(cwd, &ARGS);
    // A person rejects an accepted mental state.
    let rejected = {
        let store = Store::open(&cwd.join("w.db")).unwrap();
        let (build, _) =
            moviegraph::workspace::graph::latest_build(&store, "the-second-key").unwrap();
        let rows = store.graph_candidate_rows(build).unwrap();
        let node_id = |item: &str| {
            let v: serde_json::Value = serde_json::from_str(item).unwrap();
            v["id"].as_str().unwrap().to_owned()
        };
        // An accepted state no other candidate of the build also proposes.
        let row = rows
            .iter()
            .find(|r| {
                r.status == "accepted"
                    && r.kind == "node:mental_state"
                    && rows
                        .iter()
                        .filter(|o| node_id(&o.item) == node_id(&r.item))
                        .count()
                        == 1
            })
            .expect("an accepted mental state")
            .clone();
        let decision = DecisionRow {
            id: "nonce-1".into(),
            candidate: row.id.clone(),
            reviewer: "ana".into(),
            at_ms: 1,
            queue: "sample".into(),
            decision: "{\"decision\":\"reject\",\"reason\":\"not_supported\"}".into(),
        };
        let vote = VoteRow {
            judge: "ana".into(),
            role: "human".into(),
            accept: false,
            rationale: "not supported".into(),
        };
        let reject = |o: &OriginalRow, _: &[DecisionRow]| ("rejected".to_owned(), o.item.clone());
        assert!(store
            .review_decide(build, &decision, &vote, &reject)
            .unwrap());
        node_id(&row.item)
    };
    let graph = || String::from_utf8(read(cwd.join("o").join(GRAPH))).unwrap();
    assert!(graph().contains(&format!("\"{rejected}\"")));
    let out = run(cwd, &ARGS);
    let acts = actions(&out);
    assert_eq!(action_of(&acts, "parse").1, "skipped", "{out}");
    assert_eq!(action_of(&acts, "align").1, "skipped", "{out}");
    assert_eq!(action_of(&acts, "graph").1, "ran", "{out}");
    assert!(
        action_of(&acts, "graph").2.contains("people's review"),
        "{out}"
    );
    assert!(out.contains("re-exported"), "{out}");
    for s in ["trees", "eval", "report"] {
        assert_eq!(action_of(&acts, s).1, "ran", "{s}: {out}");
    }
    assert!(
        !graph().contains(&format!("\"{rejected}\"")),
        "the rejected state left the verified graph"
    );
    let html = String::from_utf8(read(cwd.join("o").join(REPORTS[0]))).unwrap();
    assert!(html.contains("People's review of the graph"), "{html}");
    assert!(html.contains("<td>ana</td>"), "{html}");
    // The decision is still there, and nothing more happens on a third run.
    let out = run(cwd, &ARGS);
    assert!(actions(&out).iter().all(|a| a.1 == "skipped"), "{out}");
}
