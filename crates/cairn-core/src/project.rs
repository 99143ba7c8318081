//! Which project a call is about, when the caller does not say.
//!
//! In order: a `.cairn` file found walking up from the directory (written by
//! `cairn init`), else the name of the git repository's top-level directory,
//! else none (global memories only).

use std::path::{Path, PathBuf};

/// The file `cairn init` writes: one line `project = "NAME"`.
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
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter_map(|l| l.split_once('='))
        .find(|(k, _)| k.trim() == "project")
        .map(|(_, v)| v.trim().trim_matches('"').trim().to_string())
        .filter(|v| !v.is_empty())
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
