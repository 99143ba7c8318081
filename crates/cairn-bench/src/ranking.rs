//! The ranking flags the retrieval-quality benchmarks share (`locomo`,
//! `eval`): every knob of [`Fusion`], the profile and a reranker, so that an
//! ablation runs the same way on both sets.

use cairn_core::engine::Profile;
use cairn_core::rank::Fusion;
use cairn_core::EmbedRecipe;

/// How questions are ranked, from the command line.
#[derive(Debug, Clone, clap::Args)]
pub struct RankingArgs {
    /// Fusion: the RRF constant.
    #[arg(long, default_value_t = Fusion::default().k)]
    rrf_k: f64,
    /// Fusion: the keyword ranking's weight.
    #[arg(long, default_value_t = Fusion::default().keyword_weight)]
    keyword_weight: f64,
    /// Fusion: the vector ranking's weight.
    #[arg(long, default_value_t = Fusion::default().vector_weight)]
    vector_weight: f64,
    /// Fusion: candidates per result from each side.
    #[arg(long, default_value_t = Fusion::default().candidates_per_result)]
    candidates: usize,
    /// Fusion: fixed weights instead of weights scaled per query by each
    /// ranking's confidence.
    #[arg(long)]
    fixed_weights: bool,
    /// Fusion: the vector ranking counts as sure of its first place when
    /// its first cosine leads its tenth by this margin
    /// (`rank::vector_confidence`).
    #[arg(long, value_name = "COSINE", default_value_t = Fusion::default().vector_margin)]
    vector_margin: f64,
    /// Boost memories naming the query's entities.
    #[arg(long)]
    entity_boost: bool,
    /// Deprioritise memories idle for longer than this many days
    /// (`rank::staleness`; default off).
    #[arg(long)]
    staleness_days: Option<f64>,
    /// Hybrid: raise memories written within the time the question names
    /// by this much (`rank::time_match`; 0 turns it off).
    #[arg(long, value_name = "BOOST", default_value_t = Fusion::default().time_boost)]
    time_boost: f64,
    /// Hybrid: the weight of the keyword search expanded with the first
    /// vector hits' terms (`rank::feedback_terms`; 0 turns it off).
    #[arg(long, value_name = "WEIGHT", default_value_t = Fusion::default().feedback_weight)]
    feedback_weight: f64,
    /// Leave out results whose relevance is below this (0 keeps every
    /// match; `rank::relevance`).
    #[arg(long, value_name = "FLOOR", default_value_t = Fusion::default().min_relevance)]
    min_relevance: f64,
    /// The relevance model's coefficients, comma-separated (bias, cosine,
    /// terms, terms-only bias, terms only, and optionally the unknown
    /// share's weight, else 0; default the fitted
    /// `rank::relevance::FITTED`).
    #[arg(long, value_name = "B,C,T,TB,TO[,U]", allow_hyphen_values = true)]
    relevance_model: Option<cairn_core::rank::relevance::RelevanceModel>,
    /// Multiply each candidate's score by its relevance to this power
    /// (`rank::relevance_factor`; 0 turns it off).
    #[arg(long, value_name = "WEIGHT", default_value_t = Fusion::default().relevance_weight)]
    relevance_weight: f64,
    /// Rerank recall's best candidates by maximal marginal relevance with
    /// this λ (`rerank::Mmr`; default off).
    #[arg(long, value_name = "LAMBDA")]
    mmr: Option<f64>,
    /// Ranking profile: cairn (default) or vault (Memory Vault AI's).
    #[arg(long, default_value = "cairn")]
    profile: Profile,
    /// What each memory's vector is made from: its content, or the content
    /// with its tags, the entities it names (the engine's recipe), or both
    /// (`EmbedRecipe`).
    #[arg(long, value_enum, default_value = "entities")]
    embed_text: EmbedText,
}

/// What each memory's vector is made from (`--embed-text`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EmbedText {
    /// The content alone.
    Content,
    /// The content and its tags.
    Tags,
    /// The content and the entities it names (the engine's recipe).
    Entities,
    /// The content, its tags and its entities.
    TagsEntities,
}

impl EmbedText {
    fn recipe(self) -> EmbedRecipe {
        EmbedRecipe {
            tags: matches!(self, EmbedText::Tags | EmbedText::TagsEntities),
            entities: matches!(self, EmbedText::Entities | EmbedText::TagsEntities),
        }
    }
}

/// How questions are ranked.
#[derive(Debug, Clone, Copy)]
pub struct Ranking {
    /// The fusion's settings.
    pub fusion: Fusion,
    /// The ranking profile.
    pub profile: Profile,
    /// MMR's λ, when reranking.
    pub mmr: Option<f64>,
    /// What each memory's vector is made from.
    pub recipe: EmbedRecipe,
}

impl RankingArgs {
    /// The ranking the flags describe.
    pub fn ranking(&self) -> Ranking {
        Ranking {
            fusion: Fusion {
                k: self.rrf_k,
                keyword_weight: self.keyword_weight,
                vector_weight: self.vector_weight,
                candidates_per_result: self.candidates,
                adaptive_keyword: !self.fixed_weights,
                vector_margin: self.vector_margin,
                entity_boost: self.entity_boost,
                staleness_days: self.staleness_days,
                time_boost: self.time_boost,
                feedback_weight: self.feedback_weight,
                min_relevance: self.min_relevance,
                relevance_model: self.relevance_model.unwrap_or_default(),
                relevance_weight: self.relevance_weight,
            },
            profile: self.profile,
            mmr: self.mmr,
            recipe: self.embed_text.recipe(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        ranking: RankingArgs,
    }

    #[test]
    fn no_flags_rank_as_the_product_does() {
        let r = Cli::parse_from(["bench"]).ranking.ranking();
        assert_eq!(r.fusion, Fusion::default());
        assert_eq!(r.profile, Profile::Cairn);
        assert_eq!(r.mmr, None);
        assert_eq!(r.recipe, EmbedRecipe::NAMES);
    }

    #[test]
    fn flags_reach_the_fusion() {
        let r = Cli::parse_from([
            "bench",
            "--fixed-weights",
            "--time-boost",
            "0",
            "--rrf-k",
            "10",
        ])
        .ranking
        .ranking();
        assert!(!r.fusion.adaptive_keyword);
        assert_eq!(r.fusion.time_boost, 0.0);
        assert_eq!(r.fusion.k, 10.0);
    }
}
