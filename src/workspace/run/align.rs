//! Stage align, then the stages after it in order.

use super::*;

pub(super) fn stages_after_parse(film: &mut Film<'_>, mut play: Option<Screenplay>) -> Result<()> {
    let Some(subs_path) = film.folder.subtitles.clone() else {
        film.out.stopped = Some((
            Stage::Parse,
            "no subtitles.srt or subtitles.vtt: align, graph, trees, eval and report need them"
                .to_owned(),
        ));
        return Ok(());
    };
    let (script_path, format) = film.folder.scripts[0].clone();

    // Align.
    let t = Instant::now();
    let shots = match film.folder.shots() {
        Some(path) => Some(
            load_shots(&path, None, None)
                .with_context(|| format!("stage align, film {}", film.slug))?,
        ),
        None => None,
    };
    let sources = crate::store::AlignmentSources {
        script: film::fingerprint(&script_path)?,
        subtitles: film::fingerprint(&subs_path)?,
        shots: shots.as_ref().map(|(_, f)| f.clone()),
    };
    let mut inputs = BTreeMap::new();
    // The parse output align reads is the preferred version alone: a change to
    // another version reruns parse (to re-score it) but not align.
    inputs.insert(
        "script".to_owned(),
        format!(
            "{} {} moviegraph {}",
            script_path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy(),
            sources.script.sha256,
            env!("CARGO_PKG_VERSION")
        ),
    );
    inputs.insert(
        subs_path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned(),
        sources.subtitles.sha256.clone(),
    );
    inputs.insert(
        "shots".to_owned(),
        sources
            .shots
            .as_ref()
            .map_or("none".to_owned(), |f| format!("{} {}", f.path, f.sha256)),
    );
    inputs.insert(
        "settings".to_owned(),
        format!(
            "{:?}; embedder {}; lone gaps from {} of the way past the unrelated 99th percentile; \
             group members by order-free similarity; 5 keyframes per block, 3000 ms",
            AlignOptions::default(),
            film.p.embedder.0.model_id(),
            crate::align::LONE_MARGIN
        ),
    );
    let (fp, mut plan) = film.plan(Stage::Align, &inputs, &[])?;
    // The verdict of the alignment the later stages read.
    let mut summary = None;
    if matches!(plan, Plan::Skip) {
        // The alignment lives in the store; `align --store` or `graph build` may have
        // replaced it since.
        let stored = film.store.load_alignment(film.id)?;
        match stored.filter(|s| super::super::align::same_inputs(&s.sources, &sources)) {
            Some(s) => summary = Some(s.alignment.summary),
            None => {
                plan = Plan::Run {
                    why: "the stored alignment was replaced or removed".to_owned(),
                    fresh: true,
                }
            }
        }
    }
    match plan {
        Plan::Skip => {
            let (verdict, embedder) = summary
                .as_ref()
                .map_or(("", ""), |s| (s.verdict.as_str(), s.embedder.as_str()));
            film.skipped(
                Stage::Align,
                fp,
                format!(
                    "the stored alignment, verdict {verdict} (embedder {})",
                    embedder_words(embedder)
                ),
                t,
            )
        }
        Plan::Run { why, .. } => {
            film.begin(Stage::Align, &fp, &inputs)?;
            let label = format!("embedder {}", embedder_words(film.p.embedder.0.name()));
            film.bar.stage(Stage::Align, &label, 1, 0.0);
            // Parsed already when the parse stage ran; else (parse was current) now.
            let primary = match play.take() {
                Some(p) => p,
                None => screenplay::parse_file(&script_path, Some(format))
                    .with_context(|| format!("stage parse, film {}", film.slug))?,
            };
            let inputs = AlignInputs::with_play(
                primary,
                &script_path,
                &subs_path,
                shots,
                film.p.allow_bad_cues,
            )
            .with_context(|| format!("stage align, film {}", film.slug))?;
            // Vectors are cached in the store: a rerun after a change elsewhere
            // embeds nothing again.
            // A long MiniLM pass moves the film's bar: texts embedded of those asked.
            let bar = film.bar.bar.clone();
            let chunked =
                crate::embed::Chunked::new(film.p.embedder.0.as_ref(), move |done, total| {
                    bar.set(done as u64, total as u64);
                });
            let cached = crate::embed::CachedEmbedder::new(&chunked, &film.store);
            let aligned = align_film(
                inputs,
                &AlignOptions::default(),
                &cached,
                Some((&film.store, &film.slug)),
            )?;
            let (alignment, elapsed, shots) =
                (&aligned.alignment, aligned.elapsed, &aligned.inputs.shots);
            // The embedding pass may have moved the bar; the stage is one step.
            film.bar.bar.set(0, 1);
            film.bar.inc(1);
            let s = &alignment.summary;
            let mut detail = String::new();
            let _ = writeln!(
                detail,
                "stage align: {} ({} of {} dialogue lines matched to {} cues, coverage {:.1} %, mean confidence {:.3}, {:.1} ms; embedder {})",
                s.verdict.as_str(),
                s.matched,
                s.dialogue_lines,
                s.cues,
                s.coverage * 100.0,
                s.mean_confidence,
                elapsed.as_secs_f64() * 1e3,
                embedder_words(&s.embedder)
            );
            let timed = alignment
                .blocks
                .iter()
                .filter(|b| b.start_ms.is_some())
                .count();
            let keyframes = match shots {
                Some((list, f)) => format!(
                    "{} shots from {}, {} keyframes attached",
                    list.shots.len(),
                    f.path,
                    alignment
                        .blocks
                        .iter()
                        .map(|b| b.keyframes.len())
                        .sum::<usize>()
                ),
                None => "no shots found".to_owned(),
            };
            let _ = write!(
                detail,
                "  {} blocks ({timed} timed), {keyframes}; saved as film {} in {}",
                alignment.blocks.len(),
                film.slug,
                film.p.store.display()
            );
            summary = Some(alignment.summary.clone());
            film.done(Stage::Align, &fp, &BTreeMap::new())?;
            film.record(Stage::Align, Action::Ran, why, detail, t);
        }
    }
    if film.p.until <= Stage::Align {
        return Ok(());
    }
    // A script that is not the film's: stop here unless script-only trees were asked for.
    if let Some(s) = &summary {
        if let Some(why) = mismatch_stop(&film.slug, s, film.p.text_only) {
            film.out.stopped = Some((Stage::Align, why));
            film.out.mismatch = true;
            return Ok(());
        }
    }
    graph_stage(film)?;
    if film.p.until <= Stage::Graph {
        return Ok(());
    }
    trees_stage(film)?;
    if film.p.until <= Stage::Trees {
        return Ok(());
    }
    eval_stage(film)?;
    if film.p.until <= Stage::Eval {
        return Ok(());
    }
    report_stage(film)
}

/// An embedder's name, and "the offline baseline" when it is the hashed one.
fn embedder_words(name: &str) -> String {
    if name == crate::embed::HashedNgramEmbedder.name() {
        format!("{name}, the offline baseline")
    } else {
        name.to_owned()
    }
}
