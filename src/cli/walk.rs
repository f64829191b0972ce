//! `moviegraph walk`: a person answers question trees, in a terminal or a browser.

use std::io::IsTerminal;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;
use moviegraph::signin::{Access, SignIn};
use moviegraph::trees::schema::Tree;
use moviegraph::walk::explore::GraphLabels;
use moviegraph::walk::preview::PreviewStyle;
use moviegraph::walk::session::{check_annotator, human_run_id};
use moviegraph::walk::{tui, web};
use moviegraph::workspace::eval::read_valid_trees;
use moviegraph::workspace::store_path;

use super::{emit, Outcome};

/// Options of `walk`.
#[derive(Debug, Args)]
pub struct WalkArgs {
    /// Tree files (`trees/<film>.jsonl`); their trees are walked in file order.
    #[arg(required = true, num_args = 1..)]
    trees: Vec<PathBuf>,
    /// Who is answering; names the human run (`human-NAME-<hash>`) so the same person
    /// resumes it (default: $USER, else `anonymous`).
    #[arg(long)]
    annotator: Option<String>,
    /// The workspace database (default: $MOVIEGRAPH_STORE, then moviegraph.db).
    #[arg(long)]
    store: Option<PathBuf>,
    /// Explore mode: any branch, with gold answers and the graph behind each
    /// question; nothing is recorded. A test walker never shows it while its run
    /// has questions left (the terminal walker opens it with Tab once the run is
    /// complete; the web walker serves one mode only), so a recorded human run is
    /// always blind.
    #[arg(long)]
    explore: bool,
    /// Keyframe previews in the terminal walker: blocks (coloured half blocks,
    /// 24-bit colour), ascii (shading), off (paths only), or auto (blocks when
    /// COLORTERM says truecolor and NO_COLOR is unset, else ascii).
    #[arg(long, value_enum, default_value_t = PreviewArg::Auto)]
    preview: PreviewArg,
    /// Serve the walker as a local web app instead of the terminal UI.
    #[arg(long)]
    serve: bool,
    /// Port of --serve (0: any free port; the address is printed on stdout).
    #[arg(long, default_value_t = 8080, requires = "serve")]
    port: u16,
    /// Address of --serve: 127.0.0.1 keeps it on this machine. Any other address
    /// needs --person (a link per person) or a password in
    /// $MOVIEGRAPH_WALK_PASSWORD.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST), requires = "serve")]
    host: IpAddr,
    /// How long an annotator's test session in --serve may go without a page
    /// before it is closed, freeing its thread and database connection: a number
    /// with s, m or h (`90s`, `30m`, `2h`; a bare number is minutes). Nothing is
    /// lost: every answer is stored as it is given, and the next page resumes.
    #[arg(long, default_value = "30m", value_parser = parse_idle, requires = "serve")]
    session_idle: Duration,
    /// A person who may use --serve (repeat for each): each gets their own
    /// link, printed once at start (new links at each start), and takes the
    /// test under that name only.
    #[arg(long, value_name = "NAME", requires = "serve")]
    person: Vec<String>,
    /// The workspace root that the trees' keyframe paths are relative to (default: the
    /// current folder). Only keyframes the trees reference, inside
    /// `ROOT/keyframes/<film>/`, are served.
    #[arg(long)]
    root: Option<PathBuf>,
}

/// Reads `--session-idle`: `90s`, `30m`, `2h`, or a bare number of minutes.
fn parse_idle(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&text[..i], c),
        _ => (text, 'm'),
    };
    let seconds_per = match unit {
        's' => 1.0,
        'm' => 60.0,
        'h' => 3600.0,
        _ => return Err(format!("unknown unit `{unit}` in `{text}`: use s, m or h")),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a duration such as 90s, 30m or 2h"))?;
    if !(value > 0.0 && value.is_finite()) || value * seconds_per > 7.0 * 86_400.0 {
        return Err(format!("`{text}`: give more than 0 and at most a week"));
    }
    Ok(Duration::from_secs_f64(value * seconds_per))
}

/// Walks question trees: test mode records a human eval run, explore mode shows gold.
pub fn walk(args: WalkArgs) -> anyhow::Result<Outcome> {
    let annotator = match &args.annotator {
        Some(name) => name.clone(),
        None => std::env::var("USER")
            .ok()
            .filter(|u| check_annotator(u).is_ok())
            .unwrap_or_else(|| "anonymous".into()),
    };
    check_annotator(&annotator)?;
    let trees = load(&args.trees)?;
    // Explore mode (which the terminal walker opens after a finished test)
    // names what each question rests on, from the films' graphs.
    let graph = GraphLabels::beside(&args.trees, &trees);
    let store_path = store_path(args.store.as_deref());
    let source = args
        .trees
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    if args.serve {
        let access = Access::choose(
            args.host,
            &args.person,
            std::env::var("MOVIEGRAPH_WALK_PASSWORD").ok(),
            "--person",
            "MOVIEGRAPH_WALK_PASSWORD",
        )
        .map_err(anyhow::Error::msg)?;
        let signin = SignIn::new(access, "mg_walk").with_owned_paths("/test/");
        let root = match &args.root {
            Some(root) => root.clone(),
            None => std::env::current_dir().context("reading the current folder")?,
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .context("starting the async runtime")?;
        return runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind(SocketAddr::new(args.host, args.port))
                .await
                .with_context(|| format!("binding {}:{}", args.host, args.port))?;
            let addr = listener.local_addr()?;
            let mut text = format!("listening on http://{addr}/\n");
            for (name, link) in signin.links(&format!("http://{addr}")) {
                text.push_str(&format!("person {name}: {link}\n"));
            }
            emit(&text)?;
            web::serve(
                listener,
                trees,
                web::WebOptions {
                    root,
                    store_path,
                    source,
                    annotator: args.annotator.clone(),
                    explore: args.explore,
                    graph,
                    session_idle: args.session_idle,
                    signin: Arc::new(signin),
                },
            )
            .await
            .context("serving the walker")?;
            Ok(Outcome::Success)
        });
    }
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        bail!("walk needs a terminal; use `walk --serve` for the web walker");
    }
    let run_id = human_run_id(&annotator, &trees);
    let summary = tui::run(
        trees,
        tui::TuiOptions {
            annotator,
            store_path: store_path.clone(),
            source,
            explore: args.explore,
            graph,
            preview: match args.preview {
                PreviewArg::Auto => PreviewStyle::detect(),
                PreviewArg::Blocks => PreviewStyle::Blocks,
                PreviewArg::Ascii => PreviewStyle::Ascii,
                PreviewArg::Off => PreviewStyle::Off,
            },
        },
    )?;
    let Some(run) = summary.run_id else {
        return Ok(Outcome::Success);
    };
    debug_assert_eq!(run, run_id);
    emit(&format!(
        "run {run}: {} answers recorded in this session; {}, store {}\n",
        summary.recorded,
        if summary.complete {
            format!("complete (moviegraph eval report {run})")
        } else {
            "not finished: run the same command to resume".into()
        },
        store_path.display()
    ))?;
    if let Some(error) = summary.error {
        bail!("the run stopped: {error}");
    }
    Ok(Outcome::Success)
}

fn load(paths: &[PathBuf]) -> anyhow::Result<Vec<Tree>> {
    Ok(read_valid_trees(paths, "walking")?.0)
}

/// `--preview` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum PreviewArg {
    Auto,
    Blocks,
    Ascii,
    Off,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_idle_reads_seconds_minutes_hours_and_bare_minutes() {
        assert_eq!(parse_idle("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_idle("30m"), Ok(Duration::from_secs(1800)));
        assert_eq!(parse_idle("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_idle("5"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_idle("0.5s"), Ok(Duration::from_millis(500)));
        for bad in ["", "0", "-3m", "3d", "soon", "1e9h", "NaNs"] {
            assert!(parse_idle(bad).is_err(), "{bad:?} accepted");
        }
    }
}
