//! `cairn settings set redact_personal off`: a tenant that keeps personal
//! data gets an e-mail address back verbatim while a secret beside it is
//! still redacted; the default tenant and other tenants keep redacting.

use crate::Env;

const NOTE: &str =
    "reach me at marcus.chen@example.com; the deploy key is ghp_1234567890abcdefghijABCDEFGHIJ123456";

#[test]
fn a_tenant_keeping_personal_data_gets_it_back_and_secrets_are_still_redacted() {
    let env = Env::new();
    // The default: personal data redacted, and the answer says how to keep it.
    let human = env.ok(&["remember", NOTE]);
    assert!(human.contains("1 email"), "{human}");
    assert!(
        human.contains("cairn settings set redact_personal off"),
        "{human}"
    );
    assert_eq!(env.json(&["settings"])["redact_personal"], true);

    let set = env.json(&[
        "--tenant",
        "marcus",
        "settings",
        "set",
        "redact_personal",
        "off",
    ]);
    assert_eq!(set["tenant"], "marcus");
    assert_eq!(set["redact_personal"], false);
    let out = env.json(&["--tenant", "marcus", "remember", NOTE]);
    assert_eq!(
        out["redacted"],
        serde_json::json!({"github_token": 1}),
        "{out}"
    );
    let hits = env.json(&["--tenant", "marcus", "recall", "how to reach marcus email"]);
    let content = hits["results"][0]["content"].as_str().unwrap();
    assert!(
        content.contains("reach me at marcus.chen@example.com"),
        "{content}"
    );
    assert!(content.contains("[REDACTED:github_token]"), "{content}");

    // Neither the default tenant nor another named one changed.
    assert_eq!(env.json(&["settings"])["redact_personal"], true);
    let other = env.json(&["--tenant", "ana", "remember", NOTE]);
    assert_eq!(other["redacted"]["email"], 1, "{other}");
    let hits = env.json(&["recall", "how to reach marcus email"]);
    let content = hits["results"][0]["content"].as_str().unwrap();
    assert!(content.contains("[REDACTED:email]"), "{content}");

    let bad = env.run(&["settings", "set", "redact_personal", "maybe"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("use on or off"));
    let bad = env.run(&["settings", "set", "redact_email", "off"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("the settings are redact_personal"));
}
