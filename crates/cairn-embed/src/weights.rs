//! Reading f32 tensors out of a `.safetensors` file, one tensor at a time.
//!
//! The encoder used to read the whole 87 MB file into memory, copy every
//! tensor out of that buffer, then copy the dense weights once more to
//! transpose them: three fresh 87 MB allocations, whose page faults (the
//! kernel zeroing each new page) were most of the model's load time. Here
//! each tensor is read (`pread`) straight into its final buffer, or into one
//! reused scratch buffer that the caller packs from (the dense weights, see
//! [`crate::gemm::Packed::set_columns`]); and the word embedding table
//! (30,522 × 384 floats, half the file) is not loaded at all: [`RowTable`]
//! reads the few rows a batch needs from the open file.
//!
//! The file format: an 8-byte little-endian header length `n`, `n` bytes of
//! JSON mapping each tensor name to its `dtype`, `shape` and `data_offsets`
//! (relative to the end of the header), then the tensors' bytes.
//!
//! What this module must never do: write to the file, or trust an offset
//! without checking it against the file's length and the tensor's shape.

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A failure to read a weight file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WeightsError {
    /// The file could not be opened or read.
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The header is not a valid safetensors header.
    #[error("{path}: invalid safetensors header: {reason}")]
    Header { path: PathBuf, reason: String },
    /// A tensor is missing or not what the model expects.
    #[error("{path}: tensor {name:?}: {reason}")]
    Tensor {
        path: PathBuf,
        name: String,
        reason: String,
    },
}

/// One tensor's entry in the header.
#[derive(Debug, Clone, serde::Deserialize)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: [u64; 2],
}

/// The header can not reasonably be larger than this (safetensors' own limit).
const MAX_HEADER: u64 = 100_000_000;

/// An open `.safetensors` file whose header has been parsed and checked.
pub(crate) struct WeightFile {
    path: PathBuf,
    file: Arc<File>,
    /// Where the tensor data starts (after the header).
    data_start: u64,
    entries: HashMap<String, Entry>,
}

impl WeightFile {
    /// Open `path` and parse its header; every entry's byte range is checked
    /// to lie within the file.
    pub(crate) fn open(path: &Path) -> Result<Self, WeightsError> {
        let io = |source| WeightsError::Io {
            path: path.to_owned(),
            source,
        };
        let header_err = |reason: String| WeightsError::Header {
            path: path.to_owned(),
            reason,
        };
        let file = File::open(path).map_err(io)?;
        let file_len = file.metadata().map_err(io)?.len();
        let mut len_bytes = [0u8; 8];
        file.read_exact_at(&mut len_bytes, 0).map_err(io)?;
        let header_len = u64::from_le_bytes(len_bytes);
        if header_len > MAX_HEADER || 8 + header_len > file_len {
            return Err(header_err(format!(
                "header of {header_len} bytes in a file of {file_len}"
            )));
        }
        let mut header = vec![0u8; header_len as usize];
        file.read_exact_at(&mut header, 8).map_err(io)?;
        let data_start = 8 + header_len;
        let entries = parse_header(&header, file_len - data_start).map_err(header_err)?;
        Ok(Self {
            path: path.to_owned(),
            file: Arc::new(file),
            data_start,
            entries,
        })
    }

    fn tensor_err(&self, name: &str, reason: String) -> WeightsError {
        WeightsError::Tensor {
            path: self.path.clone(),
            name: name.to_owned(),
            reason,
        }
    }

    /// Whether the file holds a tensor named `name`.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// The entry for `name`, checked to be f32 of exactly `shape`.
    fn entry(&self, name: &str, shape: &[usize]) -> Result<&Entry, WeightsError> {
        let entry = self
            .entries
            .get(name)
            .ok_or_else(|| self.tensor_err(name, "missing".to_owned()))?;
        if entry.dtype != "F32" {
            return Err(self.tensor_err(name, format!("dtype {}, expected F32", entry.dtype)));
        }
        if entry.shape != shape {
            return Err(
                self.tensor_err(name, format!("shape {:?}, expected {shape:?}", entry.shape))
            );
        }
        Ok(entry)
    }

    /// Read tensor `name`, which must be f32 of exactly `shape`, into `out`
    /// (resized to fit).
    pub(crate) fn read_into(
        &self,
        name: &str,
        shape: &[usize],
        out: &mut Vec<f32>,
    ) -> Result<(), WeightsError> {
        let entry = self.entry(name, shape)?;
        out.resize(shape.iter().product(), 0.0);
        read_f32_at(&self.file, self.data_start + entry.data_offsets[0], out).map_err(|source| {
            WeightsError::Io {
                path: self.path.clone(),
                source,
            }
        })
    }

    /// Read tensor `name`, f32 of exactly `shape`, row-major.
    pub(crate) fn read(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, WeightsError> {
        let mut out = Vec::new();
        self.read_into(name, shape, &mut out)?;
        Ok(out)
    }

    /// A reader for the rows of the `(rows, cols)` f32 matrix `name`, which
    /// stays on disk.
    pub(crate) fn row_table(
        &self,
        name: &str,
        rows: usize,
        cols: usize,
    ) -> Result<RowTable, WeightsError> {
        let entry = self.entry(name, &[rows, cols])?;
        Ok(RowTable {
            path: self.path.clone(),
            file: Arc::clone(&self.file),
            start: self.data_start + entry.data_offsets[0],
            rows,
            cols,
        })
    }
}

/// Parse and check a safetensors JSON header: every entry's data range must
/// lie within the `data_len` bytes after the header and hold exactly its
/// shape's elements (for the dtypes whose size is known here).
fn parse_header(header: &[u8], data_len: u64) -> Result<HashMap<String, Entry>, String> {
    let raw: HashMap<String, serde_json::Value> =
        serde_json::from_slice(header).map_err(|e| e.to_string())?;
    let mut entries = HashMap::with_capacity(raw.len());
    for (name, value) in raw {
        if name == "__metadata__" {
            continue;
        }
        let entry: Entry =
            serde_json::from_value(value).map_err(|e| format!("tensor {name:?}: {e}"))?;
        let [start, end] = entry.data_offsets;
        if start > end || end > data_len {
            return Err(format!(
                "tensor {name:?}: bytes {start}..{end} outside the {data_len} bytes of data"
            ));
        }
        let elem_size = match entry.dtype.as_str() {
            "F64" | "I64" | "U64" => Some(8),
            "F32" | "I32" | "U32" => Some(4),
            "F16" | "BF16" | "I16" | "U16" => Some(2),
            "I8" | "U8" | "BOOL" => Some(1),
            _ => None,
        };
        let elems = entry
            .shape
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(d as u64));
        if let (Some(size), Some(elems)) = (elem_size, elems) {
            if elems.checked_mul(size) != Some(end - start) {
                return Err(format!(
                    "tensor {name:?}: {} bytes for shape {:?} of {}",
                    end - start,
                    entry.shape,
                    entry.dtype
                ));
            }
        }
        entries.insert(name, entry);
    }
    Ok(entries)
}

/// Fill `out` with the little-endian f32s stored at byte `offset` of `file`.
fn read_f32_at(file: &File, offset: u64, out: &mut [f32]) -> std::io::Result<()> {
    file.read_exact_at(bytemuck::cast_slice_mut(out), offset)?;
    // A no-op on little-endian machines.
    for x in out.iter_mut() {
        *x = f32::from_bits(u32::from_le(x.to_bits()));
    }
    Ok(())
}

/// The rows of a matrix that stays in its file, read on demand: the word
/// embedding table, of which one query needs a dozen rows out of 30,522.
///
/// It holds the file open, so the table stays readable even if the model is
/// replaced on disk (a fetch renames new files over the old ones).
pub(crate) struct RowTable {
    path: PathBuf,
    file: Arc<File>,
    /// Byte offset of row 0 in the file.
    start: u64,
    rows: usize,
    cols: usize,
}

impl RowTable {
    /// Read row `row` into `out` (of length `cols`).
    pub(crate) fn read_row(&self, row: usize, out: &mut [f32]) -> Result<(), WeightsError> {
        if row >= self.rows || out.len() != self.cols {
            return Err(WeightsError::Tensor {
                path: self.path.clone(),
                name: "embedding table".to_owned(),
                reason: format!(
                    "row {row} of {} (width {} into {})",
                    self.rows,
                    self.cols,
                    out.len()
                ),
            });
        }
        let offset = self.start + (row * self.cols * 4) as u64;
        read_f32_at(&self.file, offset, out).map_err(|source| WeightsError::Io {
            path: self.path.clone(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A safetensors file with the given f32 tensors.
    fn write_file(tensors: &[(&str, Vec<usize>, Vec<f32>)]) -> tempfile::NamedTempFile {
        let mut header = serde_json::Map::new();
        header.insert(
            "__metadata__".to_owned(),
            serde_json::json!({"format": "pt"}),
        );
        let mut data = Vec::new();
        for (name, shape, values) in tensors {
            let start = data.len();
            for v in values {
                data.extend_from_slice(&v.to_le_bytes());
            }
            header.insert(
                (*name).to_owned(),
                serde_json::json!({"dtype": "F32", "shape": shape, "data_offsets": [start, data.len()]}),
            );
        }
        let header = serde_json::to_vec(&header).expect("json");
        let mut f = tempfile::NamedTempFile::new().expect("temp file");
        f.write_all(&(header.len() as u64).to_le_bytes())
            .expect("write");
        f.write_all(&header).expect("write");
        f.write_all(&data).expect("write");
        f
    }

    #[test]
    fn reads_tensors_and_rows() {
        let f = write_file(&[
            ("a", vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
            ("b", vec![2], vec![-1.5, 7.25]),
        ]);
        let w = WeightFile::open(f.path()).expect("open");
        assert_eq!(w.read("b", &[2]).expect("b"), vec![-1.5, 7.25]);
        assert_eq!(
            w.read("a", &[2, 3]).expect("a"),
            vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
        );
        let mut row = vec![0.0; 3];
        w.row_table("a", 2, 3)
            .expect("table")
            .read_row(1, &mut row)
            .expect("row");
        assert_eq!(row, vec![4.0, 5.0, 6.0]);
    }

    #[test]
    fn rejects_wrong_shapes_missing_tensors_and_bad_rows() {
        let f = write_file(&[("a", vec![2, 3], vec![0.0; 6])]);
        let w = WeightFile::open(f.path()).expect("open");
        assert!(w.read("a", &[3, 2]).is_err());
        assert!(w.read("nope", &[6]).is_err());
        let table = w.row_table("a", 2, 3).expect("table");
        assert!(table.read_row(2, &mut [0.0; 3]).is_err());
        assert!(table.read_row(0, &mut [0.0; 2]).is_err());
    }

    #[test]
    fn rejects_offsets_outside_the_file() {
        let mut f = write_file(&[("a", vec![2], vec![1.0, 2.0])]);
        // Drop the last float: the entry now runs past the end.
        let len = f.as_file().metadata().expect("len").len();
        f.as_file_mut().set_len(len - 4).expect("truncate");
        assert!(matches!(
            WeightFile::open(f.path()),
            Err(WeightsError::Header { .. })
        ));
        assert!(parse_header(
            br#"{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}"#,
            8
        )
        .is_err());
        assert!(parse_header(b"not json", 0).is_err());
    }
}
