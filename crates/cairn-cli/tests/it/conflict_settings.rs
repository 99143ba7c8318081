//! `cairn settings set conflicts POLICY`: a tenant's conflict policy, which
//! its writes follow over the server's (`CAIRN_CONFLICTS`, `cairn.toml`)
//! unless the write names its own; other tenants keep the server's.

use serde_json::Value;

use crate::Env;

const OLD: &str = "Dana Whitfield is the lead of the atlas platform team";
const NEW: &str = "Leadership changed: Sam Okafor is now the lead of the atlas platform team";

fn write(env: &Env, tenant: &str, text: &str, given: Option<&str>) -> Value {
    let mut args = vec!["--json", "--tenant", tenant, "remember", "--type", "fact"];
    if let Some(p) = given {
        args.extend(["--conflicts", p]);
    }
    args.push(text);
    let out = env
        .cmd()
        .env("CAIRN_CONFLICTS", "supersede")
        .args(&args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_tenant_policy_sits_between_the_request_and_the_server() {
    let env = Env::new();
    let set = env.json(&[
        "--tenant",
        "ana",
        "settings",
        "set",
        "conflicts",
        "prefer-newer",
    ]);
    assert_eq!(
        (&set["conflicts"], &set["conflicts_set"]),
        (&"prefer-newer".into(), &true.into())
    );
    let shown = env.ok(&["--tenant", "ana", "settings"]);
    assert!(shown.contains("prefer-newer"), "{shown}");

    for tenant in ["ana", "bo"] {
        write(&env, tenant, OLD, None);
    }
    let ana = write(&env, "ana", NEW, None);
    assert_eq!(ana["conflicts"][0]["action"], "contested", "{ana}");
    let bo = write(&env, "bo", NEW, None);
    assert_eq!(
        bo["conflicts"][0]["action"], "superseded",
        "the server's: {bo}"
    );
    let given = write(
        &env,
        "ana",
        "Leadership changed again: Kim Laine is now the lead of the atlas platform team",
        Some("flag"),
    );
    assert!(
        given["conflicts"]
            .as_array()
            .is_some_and(|c| !c.is_empty() && c.iter().all(|c| c["action"] == "flagged")),
        "{given}"
    );

    let bad = env.run(&["settings", "set", "conflicts", "merge"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("prefer-newer, supersede or default"));
    let reset = env.json(&["--tenant", "ana", "settings", "set", "conflicts", "default"]);
    assert_eq!(reset["conflicts_set"], false, "{reset}");
}
