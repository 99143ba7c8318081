use std::sync::Arc;

use super::*;
use crate::conformance::LexicalEmbedder;
use crate::redact::SecretKind;
use crate::MemoryStore;

fn builder() -> EngineBuilder {
    EngineBuilder::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder))
}

fn vars(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
    move |name| {
        pairs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.to_string())
    }
}

#[test]
fn left_out_parts_are_the_engines_defaults() {
    let built = builder().build().unwrap();
    let plain = Cairn::new(Arc::new(MemoryStore::new()), Arc::new(LexicalEmbedder));
    assert_eq!(built.redaction(), plain.redaction());
    assert_eq!(built.redaction(), Some(Redactor::default()));
    assert_eq!(built.conflict_policy(), ConflictPolicy::default());
    assert!(built.chat().is_none() && built.reranker().is_none());
    let unset = builder().settings(|_| None).unwrap();
    assert_eq!(unset.fusion, Fusion::default());
}

#[test]
fn redaction_and_conflict_policy_reach_the_engine() {
    let off = builder().redaction(Some("off")).build().unwrap();
    assert_eq!(off.redaction(), None);
    let some = builder()
        .redaction(Some("email"))
        .conflict_policy(Some(ConflictPolicy::PreferNewer))
        .build()
        .unwrap();
    let kinds: Vec<SecretKind> = some.redaction().unwrap().kinds().collect();
    assert_eq!(kinds, [SecretKind::Email]);
    assert_eq!(some.conflict_policy(), ConflictPolicy::PreferNewer);
    let err = builder().redaction(Some("emails")).build().err().unwrap();
    assert!(
        err.to_string().contains("unknown redaction kind `emails`"),
        "{err}"
    );
}

#[test]
fn the_environment_sets_staleness_and_the_relevance_floor() {
    let b = builder()
        .settings(vars(&[
            (STALENESS_DAYS_VAR, " 30 "),
            (MIN_RELEVANCE_VAR, "0"),
        ]))
        .unwrap();
    assert_eq!(b.fusion.staleness_days, Some(30.0));
    assert_eq!(b.fusion.min_relevance, 0.0);
    let blank = builder()
        .settings(vars(&[(STALENESS_DAYS_VAR, "  ")]))
        .unwrap();
    assert_eq!(blank.fusion.staleness_days, None);
}

#[test]
fn out_of_range_settings_are_refused_by_name() {
    for (pairs, name) in [
        (&[(STALENESS_DAYS_VAR, "-1")][..], STALENESS_DAYS_VAR),
        (&[(STALENESS_DAYS_VAR, "soon")][..], STALENESS_DAYS_VAR),
        (&[(MIN_RELEVANCE_VAR, "1.5")][..], MIN_RELEVANCE_VAR),
    ] {
        let pairs: &'static [(&str, &str)] = pairs;
        let err = builder().settings(vars(pairs)).err().unwrap();
        assert_eq!(err.kind(), crate::ErrorKind::InvalidInput, "{err}");
        assert!(err.to_string().contains(name), "{err}");
    }
}
