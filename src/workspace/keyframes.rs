//! Which keyframe images the web walker and the review app may serve, and the file
//! each request maps to.
//!
//! Only images that a loaded tree (or the reviewed graph) references, under
//! `keyframes/<that film>/` of
//! the workspace, are served. A request is refused before the file system is touched
//! when it is not such a reference (`..`, absolute paths, backslashes and anything not
//! named by a tree never match), and the file is served only if its canonical path
//! (symlinks resolved) is still inside the film's canonical keyframe folder. There is
//! no listing of any folder.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use crate::trees::schema::Tree;

/// Why a keyframe request is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyframeRefusal {
    /// No loaded tree references this path (or it is not a plain relative path).
    #[error("no tree references this keyframe")]
    NotReferenced,
    /// The referenced file does not exist or is not a file.
    #[error("the keyframe file is missing")]
    Missing,
    /// The file resolves outside its film's keyframe folder (a symlink escape).
    #[error("the keyframe resolves outside its film's keyframe folder")]
    Outside,
    /// Not an image type the walker serves.
    #[error("not a jpg, png, gif or webp image")]
    NotAnImage,
}

/// The keyframes the walker may serve.
#[derive(Debug, Clone)]
pub struct Keyframes {
    root: PathBuf,
    /// Referenced path (workspace-relative, as in the tree) → its film.
    allowed: BTreeMap<String, String>,
}

impl Keyframes {
    /// The keyframes referenced by `trees`, in the workspace at `root`.
    pub fn new(root: &Path, trees: &[Tree]) -> Keyframes {
        let mut allowed = BTreeMap::new();
        for tree in trees {
            let prefix = format!("keyframes/{}/", tree.film);
            for node in &tree.nodes {
                for path in &node.context.keyframes {
                    if path.starts_with(&prefix) && is_plain_relative(path) {
                        allowed.insert(path.clone(), tree.film.clone());
                    }
                }
            }
        }
        Keyframes {
            root: root.to_path_buf(),
            allowed,
        }
    }

    /// The keyframes `paths` (workspace-relative) of film `film`, in the workspace at `root`.
    pub fn of_film<'a>(
        root: &Path,
        film: &str,
        paths: impl IntoIterator<Item = &'a str>,
    ) -> Keyframes {
        let prefix = format!("keyframes/{film}/");
        let allowed = paths
            .into_iter()
            .filter(|p| p.starts_with(&prefix) && is_plain_relative(p))
            .map(|p| (p.to_owned(), film.to_owned()))
            .collect();
        Keyframes {
            root: root.to_path_buf(),
            allowed,
        }
    }

    /// Whether a tree references `path` (workspace-relative, as in the tree file).
    pub fn is_referenced(&self, path: &str) -> bool {
        self.allowed.contains_key(path)
    }

    /// The file behind the referenced path `path` and its content type.
    pub fn resolve(&self, path: &str) -> Result<(PathBuf, &'static str), KeyframeRefusal> {
        let film = self
            .allowed
            .get(path)
            .ok_or(KeyframeRefusal::NotReferenced)?;
        let content_type = content_type(path).ok_or(KeyframeRefusal::NotAnImage)?;
        let folder = self
            .root
            .join("keyframes")
            .join(film)
            .canonicalize()
            .map_err(|_| KeyframeRefusal::Missing)?;
        let file = self
            .root
            .join(path)
            .canonicalize()
            .map_err(|_| KeyframeRefusal::Missing)?;
        if !file.starts_with(&folder) {
            return Err(KeyframeRefusal::Outside);
        }
        if !file.is_file() {
            return Err(KeyframeRefusal::Missing);
        }
        Ok((file, content_type))
    }
}

/// Relative, no `..`, `.`, root, prefix, backslash or NUL: a path that can only name
/// something below where it is joined.
fn is_plain_relative(path: &str) -> bool {
    !path.contains(['\\', '\0', ':'])
        && Path::new(path)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

fn content_type(path: &str) -> Option<&'static str> {
    let ext = Path::new(path).extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "jpg" | "jpeg" => "image/jpeg",
        "png" => "image/png",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trees::schema::*;

    fn tree(film: &str, keyframes: &[&str]) -> Tree {
        Tree {
            id: format!("{film}/t1"),
            film: film.into(),
            anchor: Anchor {
                kind: AnchorKind::MentalState,
                elements: vec![],
            },
            nodes: vec![Node {
                id: "n1".into(),
                depth: 1,
                parent: None,
                trigger: None,
                premise: None,
                question: "Q?".into(),
                format: Format::Open,
                options: vec![],
                reference: Some("r".into()),
                open_branches: OpenBranches::default(),
                category: Category {
                    level1: "a".into(),
                    level2: "b".into(),
                },
                question_type: QuestionType::BasicTom,
                tags: Tags::default(),
                derived_from: vec![],
                context: Context {
                    blocks: vec![],
                    excerpt: String::new(),
                    keyframes: keyframes.iter().map(|s| s.to_string()).collect(),
                },
            }],
        }
    }

    #[test]
    fn only_referenced_files_inside_the_film_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("keyframes/f/shots")).unwrap();
        std::fs::create_dir_all(root.join("keyframes/g")).unwrap();
        std::fs::write(root.join("keyframes/f/shots/a.jpg"), b"jpg").unwrap();
        std::fs::write(root.join("keyframes/f/shots/b.jpg"), b"jpg").unwrap();
        std::fs::write(root.join("keyframes/g/c.png"), b"png").unwrap();
        std::fs::write(root.join("secret.jpg"), b"secret").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("secret.jpg"), root.join("keyframes/f/link.jpg"))
            .unwrap();
        let kf = Keyframes::new(
            root,
            &[tree(
                "f",
                &[
                    "keyframes/f/shots/a.jpg",
                    "keyframes/f/link.jpg",
                    "keyframes/f/../../secret.jpg",
                    "keyframes/g/c.png",
                    "keyframes/f/notes.txt",
                ],
            )],
        );
        let (file, kind) = kf.resolve("keyframes/f/shots/a.jpg").unwrap();
        assert!(file.ends_with("keyframes/f/shots/a.jpg"));
        assert_eq!(kind, "image/jpeg");
        // Present but referenced by no tree.
        assert_eq!(
            kf.resolve("keyframes/f/shots/b.jpg"),
            Err(KeyframeRefusal::NotReferenced)
        );
        // Another film's folder, `..`, absolute paths.
        for path in [
            "keyframes/g/c.png",
            "keyframes/f/../../secret.jpg",
            "/etc/passwd",
            "../../etc/passwd",
        ] {
            assert_eq!(
                kf.resolve(path),
                Err(KeyframeRefusal::NotReferenced),
                "{path}"
            );
        }
        #[cfg(unix)]
        assert_eq!(
            kf.resolve("keyframes/f/link.jpg"),
            Err(KeyframeRefusal::Outside)
        );
        assert_eq!(
            kf.resolve("keyframes/f/notes.txt"),
            Err(KeyframeRefusal::NotAnImage)
        );
    }
}
