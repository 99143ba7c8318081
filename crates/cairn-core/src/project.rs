//! Which project (and slot) a call is about, when the caller does not say.
//!
//! Project, in order: a `.cairn` file found walking up from the directory
//! (written by `cairn init`), else the name of the git repository's
//! top-level directory, else none (global memories only). Slot: the
//! nearest `.cairn` file with a `slot` line (written by `cairn slot bind`).

use std::path::{Path, PathBuf};

/// The file `cairn init` writes: lines `key = "VALUE"` (`project`, and
/// `slot` once `cairn slot bind` wrote it); `#` starts a comment.
pub const PROJECT_FILE: &str = ".cairn";

/// How a project was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProjectSource {
    /// A `.cairn` file at this path.
    CairnFile(PathBuf),
    /// The top-level directory of a git repository.
    GitRepository(PathBuf),
}

/// A detected project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetectedProject {
    /// The project name.
    pub name: String,
    /// Where it came from.
    pub source: ProjectSource,
}

/// Read the project name from the text of a `.cairn` file: a line
/// `project = "NAME"` (quotes optional); `#` starts a comment.
pub fn parse_project_file(text: &str) -> Option<String> {
    project_file_value(text, "project")
}

/// The value of `key` in the text of a `.cairn` file.
pub fn project_file_value(text: &str, key: &str) -> Option<String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter_map(|l| l.split_once('='))
        .find(|(k, _)| k.trim() == key)
        .map(|(_, v)| v.trim().trim_matches('"').trim().to_string())
        .filter(|v| !v.is_empty())
}

/// The text of a `.cairn` file with `key` set to `value` (its line
/// replaced, or added at the end) or, with `None`, its line removed; every
/// other line is kept as it was.
pub fn set_project_file_value(text: &str, key: &str, value: Option<&str>) -> String {
    let is_key = |line: &str| {
        line.split('#')
            .next()
            .unwrap_or("")
            .split_once('=')
            .is_some_and(|(k, _)| k.trim() == key)
    };
    let line = value.map(|v| format!("{key} = \"{}\"", v.replace(['"', '\n'], "")));
    let mut out = Vec::new();
    let mut placed = false;
    for l in text.lines() {
        if is_key(l) {
            if let (Some(line), false) = (&line, placed) {
                out.push(line.clone());
                placed = true;
            }
        } else {
            out.push(l.to_string());
        }
    }
    if let (Some(line), false) = (line, placed) {
        out.push(line);
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

/// The nearest `.cairn` file walking up from `dir`, if any.
pub fn find_project_file(dir: &Path) -> Option<PathBuf> {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors()
        .map(|d| d.join(PROJECT_FILE))
        .find(|f| f.is_file())
}

/// The slot bound to `dir` (`cairn slot bind`): the `slot` line of the
/// nearest `.cairn` file that has one, with that file.
pub fn detect_slot(dir: &Path) -> Option<(String, PathBuf)> {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors().find_map(|d| {
        let file = d.join(PROJECT_FILE);
        let text = std::fs::read_to_string(&file).ok()?;
        project_file_value(&text, "slot").map(|s| (s, file))
    })
}

/// The text `cairn init` writes for `name`.
pub fn project_file_text(name: &str) -> String {
    format!(
        "# Cairn project file: memories written from this directory tree belong to this project.\nproject = \"{}\"\n",
        name.replace(['"', '\n'], "")
    )
}

/// Detect the project for `dir` (see the module docs).
pub fn detect_project(dir: &Path) -> Option<DetectedProject> {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    for d in dir.ancestors() {
        let file = d.join(PROJECT_FILE);
        if file.is_file() {
            if let Some(name) = std::fs::read_to_string(&file)
                .ok()
                .and_then(|t| parse_project_file(&t))
            {
                return Some(DetectedProject {
                    name,
                    source: ProjectSource::CairnFile(file),
                });
            }
        }
    }
    let top = dir.ancestors().find(|d| d.join(".git").exists())?;
    let name = top.file_name()?.to_string_lossy().into_owned();
    Some(DetectedProject {
        name,
        source: ProjectSource::GitRepository(top.to_path_buf()),
    })
}

/// A local path from a `file://` URI (as MCP roots are given), if it is one.
pub fn path_of_file_uri(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file:///home/x` (empty host) or `file://localhost/home/x`.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    Some(PathBuf::from(percent_decode(path)))
}

/// Decode `%XX` escapes (a `file://` URI's path); invalid escapes stay as
/// they are.
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_file_values_are_set_replaced_and_removed() {
        let text = project_file_text("atlas");
        let bound = set_project_file_value(&text, "slot", Some("atlas-dev"));
        assert_eq!(
            project_file_value(&bound, "slot").as_deref(),
            Some("atlas-dev")
        );
        assert_eq!(parse_project_file(&bound).as_deref(), Some("atlas"));
        let rebound = set_project_file_value(&bound, "slot", Some("notes"));
        assert_eq!(rebound.matches("slot").count(), 1, "{rebound}");
        assert_eq!(
            project_file_value(&rebound, "slot").as_deref(),
            Some("notes")
        );
        let unbound = set_project_file_value(&rebound, "slot", None);
        assert_eq!(unbound, text, "unbinding gives the file back as it was");
        assert_eq!(
            set_project_file_value("", "slot", Some("a\"b")),
            "slot = \"ab\"\n"
        );
    }

    #[test]
    fn the_nearest_bound_slot_wins() {
        let root = tempfile::tempdir().unwrap();
        let inner = root.path().join("a/b");
        std::fs::create_dir_all(&inner).unwrap();
        assert_eq!(detect_slot(&inner), None);
        std::fs::write(root.path().join(PROJECT_FILE), "slot = \"outer\"\n").unwrap();
        // A nearer file without a slot line does not hide the outer one.
        std::fs::write(
            root.path().join("a").join(PROJECT_FILE),
            "project = \"x\"\n",
        )
        .unwrap();
        assert_eq!(detect_slot(&inner).unwrap().0, "outer");
        std::fs::write(inner.join(PROJECT_FILE), "slot = inner\n").unwrap();
        assert_eq!(detect_slot(&inner).unwrap().0, "inner");
    }

    #[test]
    fn project_file_round_trips() {
        assert_eq!(
            parse_project_file(&project_file_text("atlas")).as_deref(),
            Some("atlas")
        );
        assert_eq!(parse_project_file("project=bare").as_deref(), Some("bare"));
        assert_eq!(parse_project_file("# project = \"x\"\n"), None);
        assert_eq!(parse_project_file("project = \"\""), None);
    }

    #[test]
    fn cairn_file_wins_over_git() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("my-repo");
        let sub = repo.join("src/deep");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::create_dir(repo.join(".git")).unwrap();
        let found = detect_project(&sub).unwrap();
        assert_eq!(found.name, "my-repo");
        assert!(matches!(found.source, ProjectSource::GitRepository(_)));
        std::fs::write(
            repo.join("src").join(PROJECT_FILE),
            project_file_text("atlas"),
        )
        .unwrap();
        let found = detect_project(&sub).unwrap();
        assert_eq!(found.name, "atlas");
        assert!(matches!(found.source, ProjectSource::CairnFile(_)));
    }

    #[test]
    fn no_project_outside_repositories() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(detect_project(tmp.path()), None);
    }

    #[test]
    fn file_uris() {
        assert_eq!(
            path_of_file_uri("file:///home/a%20b/x"),
            Some(PathBuf::from("/home/a b/x"))
        );
        assert_eq!(
            path_of_file_uri("file://localhost/srv"),
            Some(PathBuf::from("/srv"))
        );
        assert_eq!(path_of_file_uri("https://x/y"), None);
    }
}
