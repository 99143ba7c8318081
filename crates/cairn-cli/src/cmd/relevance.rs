//! The commands that read by relevance: recall, context and prompt.

use super::*;

pub(crate) fn recall(cairn: &Cairn, a: RecallArgs, json: bool) -> Result<()> {
    let input = RecallInput {
        query: a.query.join(" "),
        selection: selection(&a.filter),
        limit: a.limit,
        mode: Some(
            match a.mode {
                Mode::Hybrid => SearchMode::Hybrid,
                Mode::Keyword => SearchMode::Keyword,
                Mode::Semantic => SearchMode::Semantic,
                Mode::Temporal => SearchMode::Temporal,
                Mode::Importance => SearchMode::Importance,
            }
            .as_str()
            .to_string(),
        ),
        reference: a.reference,
        entity: a.entity,
        budget: a.budget,
        explain: a.explain,
        highlight: a.highlight,
        profile: Some(a.profile),
        min_relevance: a.min_relevance,
    };
    let out = api::recall(cairn, &caller(), input)?;
    if json {
        return print_json(&out);
    }
    if let Some(warning) = out.rerank.as_ref().and_then(|r| r.warning()) {
        eprintln!("{} {warning}", paint("warning:", out::YELLOW));
    }
    if out.results.is_empty() {
        println!("{} (scope: {})", api::NOTHING_RELEVANT, out.scope);
        return Ok(());
    }
    let views: Vec<MemoryView> = out.results.iter().map(|r| r.memory.clone()).collect();
    let ids = shorts(cairn, &ids_of(&views))?;
    let rows: Vec<Vec<String>> = out
        .results
        .iter()
        .zip(&ids)
        .map(|(r, id)| {
            let m = &r.memory.record;
            vec![
                id.clone(),
                format!("{:.4}", r.score),
                r.relevance.map_or("-".into(), |x| format!("{x:.2}")),
                r.matched.as_str().to_string(),
                m.kind.clone().unwrap_or_default(),
                m.project.clone().unwrap_or_else(|| "(global)".into()),
                match &r.highlight {
                    Some(h) => out::one_line(&h.snippet, 100),
                    None => out::one_line(&m.content, 80),
                },
            ]
        })
        .collect();
    out::table(
        &["ID", "SCORE", "RELEV", "MATCH", "TYPE", "SCOPE", "CONTENT"],
        &rows,
    );
    if out.omitted > 0 {
        println!(
            "{}",
            paint(
                &format!(
                    "{} left out to stay within {} tokens (--budget)",
                    api::plural(out.omitted, "match", "matches"),
                    a.budget.unwrap_or_default()
                ),
                out::DIM
            )
        );
    }
    if a.explain {
        println!();
        let rank = |r: Option<usize>| r.map_or("-".to_string(), |r| r.to_string());
        let rows: Vec<Vec<String>> = out
            .results
            .iter()
            .zip(&ids)
            .filter_map(|(r, id)| {
                let e = r.explain.as_ref()?;
                Some(vec![
                    id.clone(),
                    rank(e.bm25_rank),
                    e.bm25_score.map_or("-".into(), |s| format!("{s:.3}")),
                    rank(e.vector_rank),
                    e.cosine.map_or("-".into(), |c| format!("{c:.3}")),
                    format!("{:.5}", e.rrf),
                    format!("{:.3}", e.boost),
                    format!("{:.3}", e.decay),
                    format!("{:.1}", e.scope_weight),
                    format!("{:.2}", e.weight),
                    format!("{:.2}", e.time),
                    e.term_share.map_or("-".into(), |s| format!("{s:.2}")),
                    e.relevance.map_or("-".into(), |s| format!("{s:.3}")),
                    format!("{:.5}", e.score),
                ])
            })
            .collect();
        out::table(
            &[
                "ID", "BM25#", "BM25", "VEC#", "COSINE", "RRF", "BOOST", "DECAY", "SCOPE",
                "WEIGHT", "TIME", "TERMS", "RELEV", "SCORE",
            ],
            &rows,
        );
    }
    Ok(())
}

pub(super) fn context(cairn: &Cairn, a: ContextArgs, json: bool) -> Result<()> {
    let topic = (!a.topic.is_empty()).then(|| a.topic.join(" "));
    let project = match a.project {
        Some(p) => Some(p),
        None if a.auto_project => std::env::current_dir()
            .ok()
            .and_then(|d| detect_project(&d))
            .map(|d| d.name),
        None => None,
    };
    let pack = api::context(
        cairn,
        &caller(),
        ContextInput {
            topic,
            project,
            budget: a.budget,
        },
    )?;
    if json || a.format == ContextFormat::Json {
        print_json(&pack)
    } else {
        print!("{}", pack.markdown);
        Ok(())
    }
}

pub(super) fn prompt(cairn: &Cairn, a: PromptArgs, json: bool) -> Result<()> {
    let template = match &a.template {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading the template {}", path.display()))?;
            let t: cairn_core::template::PromptTemplate = toml_edit::de::from_str(&text)
                .map_err(|e| Error::invalid(format!("{}: {e}", path.display())))?;
            Some(t)
        }
        None => None,
    };
    let window = api::prompt(
        cairn,
        &caller(),
        api::PromptInput {
            query: text_arg(&a.query)?,
            project: a.project,
            budget: a.budget,
            tokenizer: Some(a.tokenizer),
            format: template.is_none().then_some(a.format),
            template,
        },
    )?;
    crate::conversation::print_window(&window, json)
}
