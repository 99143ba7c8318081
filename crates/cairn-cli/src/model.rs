//! `cairn model`: the local embedding model's status and fetch, and which
//! local model the settings choose.

use anyhow::Result;
use serde_json::Value;

use crate::args::ModelAction;
use crate::cmd::print_json;
use crate::lazy::LocalModel;
use crate::out::{self, paint};

/// The local model the settings choose: a sentence-transformers directory
/// (read and checked now, loaded on first use), else the default model.
pub fn local_model(providers: &cairn_providers::ProviderSettings) -> Result<LocalModel> {
    Ok(match &providers.embed_dir {
        Some(d) => LocalModel::Dir(Box::new(cairn_embed::SentenceTransformerDir::open(
            &d.dir,
            d.name.as_deref(),
        )?)),
        None => LocalModel::Default(cairn_embed::default_model_dir()),
    })
}

/// `cairn model status` (of `CAIRN_EMBED_DIR`'s model when set, else of the
/// default model's files) and `cairn model fetch` (the default model).
pub fn model(action: &ModelAction, json: bool) -> Result<()> {
    if let ModelAction::Status = action {
        let providers = cairn_providers::ProviderSettings::from_env()?;
        if let LocalModel::Dir(model) = local_model(&providers)? {
            return model_dir_status(&model, json);
        }
    }
    let dir = cairn_embed::default_model_dir();
    match action {
        ModelAction::Status => {
            let status = cairn_embed::model_status(&dir);
            let state = match status.state {
                cairn_embed::ModelState::Ready => "ready",
                cairn_embed::ModelState::Missing => "missing (run `cairn model fetch`)",
                cairn_embed::ModelState::Corrupt => {
                    "damaged (run `cairn model fetch` to replace it)"
                }
            };
            if json {
                let files: Vec<Value> = status
                    .files
                    .iter()
                    .map(|f| serde_json::json!({"name": f.file.name, "size": f.size, "state": format!("{:?}", f.state)}))
                    .collect();
                return print_json(&serde_json::json!({
                    "model": cairn_embed::model_info(),
                    "dir": dir,
                    "ready": status.is_ready(),
                    "files": files,
                }));
            }
            println!(
                "{} {}",
                paint("model:", out::BOLD),
                cairn_embed::model_info()
            );
            println!("{} {}", paint("directory:", out::BOLD), dir.display());
            println!("{} {state}", paint("status:", out::BOLD));
            let rows: Vec<Vec<String>> = status
                .files
                .iter()
                .map(|f| {
                    vec![
                        f.file.name.to_string(),
                        f.size.map_or("-".into(), |s| s.to_string()),
                        format!("{:?}", f.state),
                    ]
                })
                .collect();
            out::table(&["FILE", "BYTES", "CHECK"], &rows);
        }
        ModelAction::Fetch => {
            cairn_embed::fetch_model(&dir, &mut |msg| eprintln!("cairn: {msg}"))?;
            if json {
                return print_json(&serde_json::json!({"dir": dir, "fetched": true}));
            }
            println!("model ready in {}", dir.display());
        }
    }
    Ok(())
}

/// `cairn model status` for the directory `CAIRN_EMBED_DIR` names (read
/// and checked by [`local_model`]; its weights are read on first use).
fn model_dir_status(model: &cairn_embed::SentenceTransformerDir, json: bool) -> Result<()> {
    if json {
        return print_json(&serde_json::json!({
            "model": model.info(),
            "dir": model.dir(),
            "ready": true,
            "layout": "sentence-transformers",
            "pooling": model.pooling().to_string(),
            "max_tokens": model.max_tokens(),
        }));
    }
    println!("{} {}", paint("model:", out::BOLD), model.info());
    println!(
        "{} {} (CAIRN_EMBED_DIR, sentence-transformers layout)",
        paint("directory:", out::BOLD),
        model.dir().display()
    );
    println!("{} {}", paint("pooling:", out::BOLD), model.pooling());
    println!("{} {}", paint("max tokens:", out::BOLD), model.max_tokens());
    println!(
        "{} ready (configuration checked; the weights are read on first use)",
        paint("status:", out::BOLD)
    );
    Ok(())
}
