//! Stage parse: every screenplay version of the folder.

use super::*;

/// Parse: every version, the preferred one summarised, the others scored against it.
pub(super) fn parse_stage(film: &mut Film<'_>) -> Result<Option<Screenplay>> {
    let versions = film.folder.scripts.clone();
    let t = Instant::now();
    let mut inputs = BTreeMap::new();
    for (path, _) in versions.iter() {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        inputs.insert(name.into_owned(), file_sha(path)?);
    }
    inputs.insert(
        "moviegraph".to_owned(),
        env!("CARGO_PKG_VERSION").to_owned(),
    );
    let (fp, plan) = film.plan(Stage::Parse, &inputs, &[])?;
    let Plan::Run { why, .. } = plan else {
        film.skipped(
            Stage::Parse,
            fp,
            format!("{} (deterministic, offline)", versions[0].0.display()),
            t,
        );
        return Ok(None);
    };
    film.begin(Stage::Parse, &fp, &inputs)?;
    film.bar
        .stage(Stage::Parse, "deterministic readers", versions.len(), 0.0);
    let mut parsed: Vec<Screenplay> = Vec::new();
    for (path, format) in versions.iter() {
        tracing::debug!("parsing {}", path.display());
        let play = screenplay::parse_file(path, Some(*format))
            .with_context(|| format!("stage parse, film {}", film.slug))?;
        parsed.push(play);
        film.bar.inc(1);
    }
    let primary = &parsed[0];
    let mut detail = format!("film {}: stage parse (offline, deterministic)\n", film.slug);
    detail.push_str(&summary(primary, true));
    if parsed.len() > 1 {
        let _ = writeln!(
            detail,
            "agreement of the other versions with {} (per-kind F1 on story elements):",
            primary.format.as_str()
        );
        for other in &parsed[1..] {
            let cmp = compare(&other.elements, &primary.elements);
            let worst = cmp
                .kinds
                .iter()
                .min_by(|a, b| a.1.f1.total_cmp(&b.1.f1))
                .map(|(k, s)| format!("lowest {k} {:.1} %", s.f1 * 100.0))
                .unwrap_or_default();
            let _ = writeln!(
                detail,
                "  {:<8} micro F1 {:.1} %, {worst}, {} noise lines removed, {} diagnostics",
                other.format.as_str(),
                cmp.micro_f1 * 100.0,
                other.noise.len(),
                other.diagnostics.len()
            );
        }
    }
    film.done(Stage::Parse, &fp, &BTreeMap::new())?;
    film.record(Stage::Parse, Action::Ran, why, detail, t);
    Ok(parsed.into_iter().next())
}
