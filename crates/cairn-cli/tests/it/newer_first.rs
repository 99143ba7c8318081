//! The current side first under the default policy (`flag`), end to end
//! with the real model: `cairn remember` of a changed value answers a new
//! id naming the earlier memory's id; `cairn recall QUESTION --json` then
//! gives the newer value first, though the question is worded like the
//! older; `--as-of` a time between the two gives the older.

use crate::{result_ids, Env};

const OLD: &str = "Dana Whitfield leads the atlas platform team";
const NEW: &str = "Leadership changed: Sam Okafor is now in charge of the atlas platform team";
const QUESTION: &str = "who leads the atlas platform team?";

#[test]
fn a_flagged_correction_comes_first_and_as_of_gives_the_older() {
    let env = Env::new();
    env.remember(&["The atlas platform team deploys with Kamal from GitHub Actions"]);
    let old = env.remember(&[OLD]);
    let written = env.json(&["get", &old])["created_at"]
        .as_str()
        .expect("created_at")
        .to_string();
    let new = env.json(&["remember", NEW]);
    assert_eq!(new["status"], "created", "{new}");
    let new_id = new["id"].as_str().unwrap().to_string();
    assert_ne!(new_id, old);
    assert!(
        new["conflicts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["id"] == old.as_str() && c["action"] == "flagged"),
        "the write names the earlier memory: {new}"
    );

    // Both come back, the newer immediately before the older.
    let now = env.json(&["recall", QUESTION]);
    let found = result_ids(&now);
    let at = |id: &str| found.iter().position(|f| f == id);
    let (Some(n), Some(o)) = (at(&new_id), at(&old)) else {
        panic!("both sides recalled: {now}");
    };
    assert_eq!(n + 1, o, "the newer immediately before the older: {now}");
    assert_eq!(found[0], new_id, "{now}");

    // Before the correction was written, the older was what was believed.
    let then = env.json(&["recall", QUESTION, "--as-of", &written]);
    assert_eq!(result_ids(&then).first(), Some(&old), "{then}");
    assert!(!result_ids(&then).contains(&new_id), "{then}");
}
