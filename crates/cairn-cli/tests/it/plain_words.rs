//! Human output says what it means: no internal names a new user has to
//! look up (the model's recorded `+names`, a tier's enum name, `p3`).

use crate::Env;

#[test]
fn stats_get_and_slot_list_explain_themselves() {
    let env = Env::new();
    let id = env.remember(&["the staging database lives on db-3", "--type", "fact"]);
    let stats = env.ok(&["stats"]);
    assert!(!stats.contains("+names"), "{stats}");
    assert!(
        stats.contains("each memory's text embedded with the names it mentions"),
        "{stats}"
    );
    let get = env.ok(&["get", &id]);
    assert!(get.contains("fact (knowledge)"), "{get}");
    assert!(!get.contains("Semantic"), "{get}");
    env.ok(&["slot", "save", "notes", "an entry"]);
    let list = env.ok(&["slot", "list"]);
    assert!(list.contains("priority 3"), "{list}");
}
