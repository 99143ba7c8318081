//! PostgreSQL's text holds no NUL character: a filter naming one is the
//! caller's mistake (invalid input), never a storage error.

use cairn_core::store::{Filter, ListOrder, ScopeFilter};
use cairn_core::Error;

#[test]
fn a_nul_in_a_filter_is_invalid_input_not_a_storage_error() {
    let (store, _schema) = crate::fresh();
    let mut project = Filter::new("default", 0);
    project.scope = ScopeFilter::Project("\0".into());
    let mut sources = Filter::new("default", 0);
    sources.sources = vec!["a\0b".into()];
    for filter in [project, sources] {
        match store.list(&filter, ListOrder::Id, 10, 0) {
            Err(Error::InvalidInput(m)) => assert!(m.contains("NUL"), "{m}"),
            other => panic!("expected invalid input, got {other:?}"),
        }
    }
}
