//! The rules generator's gates are regenerated data: `gates.json` must hold
//! exactly what `bench graph --gold` fits on the development corpus today.

use std::path::Path;

use crate::common;

#[test]
fn the_committed_gates_are_what_the_corpus_measures_now() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(dirs) = common::annotated_films() else {
        return;
    };
    let films: Vec<String> = dirs.iter().map(|p| p.display().to_string()).collect();
    let mut args = vec!["bench", "graph", "--json", "--gold"];
    args.extend(films.iter().map(String::as_str));
    let out = common::moviegraph_in(root, &args);
    assert!(out.status.success(), "{}", common::said(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["gates_file_current"], true,
        "src/graph/generate/gates.json is stale: run scripts/regenerate-gates"
    );
    // Every family the file puts on was measured precise on enough states.
    let gates: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("src/graph/generate/gates.json")).unwrap(),
    )
    .unwrap();
    for (family, m) in gates["families"].as_object().unwrap() {
        let on = v["families"][family]["on"].as_bool().unwrap();
        let (kept, right) = (m["kept"].as_u64().unwrap(), m["right"].as_u64().unwrap());
        assert_eq!(on, kept >= 5 && right * 5 >= kept * 4, "{family}");
    }
    // The leave-one-film-out figures are there for every film.
    for f in &films {
        let slug = Path::new(f).file_name().unwrap().to_str().unwrap();
        assert!(
            v["leave_one_film_out"]["films"][slug]["states"].is_object(),
            "{slug}"
        );
    }
}
