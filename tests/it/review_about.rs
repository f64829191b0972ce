//! `graph review --serve`: a higher-order state's `about` edge is corrected by
//! choosing what it is about; a correction naming something that is no node,
//! or the target it already has, is refused and stores nothing.

use crate::common::http::request;
use crate::review_web::{built, encode, field, latest_build, serve, sign_in};

use moviegraph::graph::review_store::ReviewStore;
use moviegraph::graph::store::GraphStore;
use moviegraph::graph::{EdgeKind, Item, Status};
use moviegraph::store::Store;

#[test]
fn a_reviewer_corrects_what_a_higher_order_state_is_about() {
    let (_dir, db) = built();
    let server = serve(&db, &[]);
    let cookie = sign_in(&server.addr, "ana");
    let page = request(
        &server.addr,
        "GET",
        "/next?q=kind:edge:about",
        None,
        Some(&cookie),
    )
    .body;
    assert!(page.contains("correct what it is about"), "{page}");
    let candidate = field(&page, "candidate");
    let choices: Vec<(String, bool)> = page
        .split("<select name=\"about\" id=\"holder\">")
        .nth(1)
        .unwrap()
        .split("</select>")
        .next()
        .unwrap()
        .split("<option value=\"")
        .skip(1)
        .map(|o| {
            let id = o.split('"').next().unwrap().replace("&gt;", ">");
            (id, o.contains("\" selected>"))
        })
        .collect();
    let (current, _) = choices
        .iter()
        .find(|c| c.1)
        .expect("the target is selected");
    let (other, _) = choices.iter().find(|c| !c.1).expect("another choice");
    let nonce = field(&page, "nonce");
    let post = |about: &str, nonce: &str| {
        request(
            &server.addr,
            "POST",
            "/decide",
            Some(&format!(
                "nonce={nonce}&candidate={}&q=kind%3Aedge%3Aabout&decision=correct&about={}",
                encode(&candidate),
                encode(about)
            )),
            Some(&cookie),
        )
    };
    // The target it has, and a node that does not exist: refused.
    assert_eq!(post(current, &format!("{nonce}x")).status, 400);
    assert_eq!(
        post("mental_state:nobody", &format!("{nonce}y")).status,
        400
    );
    let r = post(other, &nonce);
    assert_eq!(r.status, 303, "{}", r.body);
    drop(server);

    let store = Store::open(&db).unwrap();
    let build = latest_build(&store);
    assert_eq!(
        store.review_all(build).unwrap().len(),
        1,
        "only the good one"
    );
    let c = store
        .graph_candidates(build)
        .unwrap()
        .into_iter()
        .find(|c| c.id == candidate)
        .unwrap();
    assert_eq!(c.status, Status::Accepted);
    let Item::Edge(e) = &c.item else {
        panic!("an edge")
    };
    assert_eq!(e.kind, EdgeKind::About);
    assert_eq!(&e.target, other);
    assert_eq!(e.id, format!("about:{}->{other}", e.source));
}

#[test]
fn bench_review_prints_its_figures_and_stores_every_decision_once() {
    let out = crate::common::moviegraph_offline()
        .args(["bench", "review", "--decisions", "12", "--reviewers", "3"])
        .arg("--film")
        .arg(crate::common::root().join("screenplays/the-second-key"))
        .current_dir(crate::common::root())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", crate::common::said(&out));
    for what in [
        "in-process ReviewApp (baseline, no HTTP)",
        "one reviewer over HTTP",
        "3 reviewers at once over HTTP",
    ] {
        assert!(said.contains(what), "{said}");
    }
    // Three measurements, each with all twelve decisions made and stored once.
    assert_eq!(
        said.matches("12 decisions stored, 12 made").count(),
        3,
        "{said}"
    );
    assert!(said.contains("a minute"), "{said}");
}
