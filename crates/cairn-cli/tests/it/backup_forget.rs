//! A backup taken after a forget holds none of the forgotten text (a
//! memory with an earlier version, a conversation message), on SQLite and
//! PostgreSQL; one taken before keeps it (SECURITY.md says so). On
//! PostgreSQL no table of the store holds the text in a live row.

use std::path::Path;

use crate::Env;

/// Words only the forgotten texts have.
const WORDS: [&str; 2] = ["wombat", "xylophone"];

fn holds(file: &Path) -> bool {
    let bytes = std::fs::read(file).unwrap();
    WORDS
        .iter()
        .any(|w| bytes.windows(w.len()).any(|b| b == w.as_bytes()))
}

/// Write the texts, back up (`before`), forget them, back up (`after`).
/// (Without `backups`, only the writes and the forget.)
fn forget_between_backups(env: &Env, backups: bool) -> (std::path::PathBuf, std::path::PathBuf) {
    let id = env.remember(&["the wombat keeps the xylophone key", "--tag", "secret"]);
    env.ok(&["update", &id, "--content", "the key is kept somewhere"]);
    env.ok(&[
        "conversation",
        "log",
        "--conversation",
        "zoo",
        "--speaker",
        "user",
        "the wombat learned the xylophone today",
    ]);
    env.ok(&[
        "conversation",
        "log",
        "--conversation",
        "zoo",
        "--speaker",
        "user",
        "the keeper fed the animals at noon",
    ]);
    let listed = env.json(&["list", "--all-projects", "--sort", "id"]);
    let message = listed["memories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["content"].as_str().unwrap().contains("wombat"))
        .unwrap_or_else(|| panic!("the message: {listed}"))["id"]
        .as_str()
        .unwrap()
        .to_string();
    let before = env.dir.path().join("before.db");
    let after = env.dir.path().join("after.db");
    if backups {
        env.ok(&["backup", before.to_str().unwrap()]);
    }
    env.ok(&["forget", &id, &message]);
    if backups {
        env.ok(&["backup", after.to_str().unwrap()]);
    }
    (before, after)
}

#[test]
fn a_backup_after_a_forget_holds_none_of_its_text() {
    let env = Env::new();
    let (before, after) = forget_between_backups(&env, true);
    assert!(holds(&before), "the earlier backup keeps what it copied");
    assert!(!holds(&after), "forgotten text in the backup");
}

#[test]
fn no_postgres_table_holds_a_forgotten_text() {
    // Both backups of this store (an updated memory, conversation
    // messages) pass their own checksum comparison with no writer running.
    let env = Env::postgres();
    let (before, after) = forget_between_backups(&env, true);
    assert!(holds(&before), "the earlier backup keeps what it copied");
    assert!(!holds(&after), "forgotten text in the backup");
    let schema = &env.pg.as_ref().unwrap().name;
    let mut client = postgres::Client::connect(&crate::pg::url(), postgres::NoTls).unwrap();
    let tables: Vec<String> = client
        .query(
            "SELECT table_name::text FROM information_schema.tables \
             WHERE table_schema = $1 AND table_type = 'BASE TABLE'",
            &[schema],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(tables.iter().any(|t| t == "memories"), "{tables:?}");
    for table in tables {
        let sql = format!(
            "SELECT count(*) FROM {schema}.{table} AS r \
             WHERE r::text LIKE '%wombat%' OR r::text LIKE '%xylophone%'"
        );
        let n: i64 = client.query_one(&sql, &[]).unwrap().get(0);
        assert_eq!(n, 0, "{table} holds forgotten text");
    }
}
