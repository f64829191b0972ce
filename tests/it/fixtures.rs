//! Data-driven parser tests: every input under `tests/fixtures/<format>/` is
//! parsed and its rendering compared with the `.expected` file beside it.
//!
//! Run with `UPDATE_EXPECT=1` to rewrite the expectations; review the diff.

use crate::common;

use moviegraph::screenplay::{self, Format};

fn check_dir(sub: &str, format: Format) {
    let dir = common::root().join("tests/fixtures").join(sub);
    common::check_fixtures(
        &dir,
        |p| p.extension().is_some_and(|x| x != "expected"),
        |input| match screenplay::parse_file(input, Some(format)) {
            Ok(play) => common::render(&play),
            Err(e) => format!("error {e}\n"),
        },
    );
}

#[test]
fn fountain_fixtures() {
    check_dir("fountain", Format::Fountain);
}

#[test]
fn fdx_fixtures() {
    check_dir("fdx", Format::Fdx);
}

#[test]
fn text_fixtures() {
    check_dir("text", Format::Text);
}
