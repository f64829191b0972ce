//! The `moviegraph` command: a thin layer over the library. Each subcommand
//! lives in `src/cli/` as one entry function; errors are printed once, here.
//!
//! Exit codes are a contract: 0 success, 1 a check failed, 2 an error.

mod args;
mod bench;
mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
