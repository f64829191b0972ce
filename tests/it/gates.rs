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
    // Every family the file puts on was measured precise enough, its own
    // items counted with its cue's precision as the prior (5 items' worth),
    // over a cue seen on at least 5 kept states.
    let gates: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("src/graph/generate/gates.json")).unwrap(),
    )
    .unwrap();
    let families = gates["families"].as_object().unwrap();
    let cue = |f: &str| {
        f.rsplit_once(" / ")
            .map_or(f.to_owned(), |(c, _)| c.to_owned())
    };
    for (family, m) in families {
        let on = v["families"][family]["on"].as_bool().unwrap();
        let (kept, right) = (m["kept"].as_f64().unwrap(), m["right"].as_f64().unwrap());
        let (cue_kept, cue_right) = families.iter().filter(|(f, _)| cue(f) == cue(family)).fold(
            (0.0, 0.0),
            |(k, r), (_, m)| {
                (
                    k + m["kept"].as_f64().unwrap(),
                    r + m["right"].as_f64().unwrap(),
                )
            },
        );
        let estimate = (right + 5.0 * cue_right / cue_kept.max(1.0)) / (kept + 5.0);
        assert_eq!(
            on,
            kept > 0.0 && cue_kept >= 5.0 && estimate >= 0.8,
            "{family}"
        );
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
