use super::numbers::{iban_checksum_valid, luhn_valid};
use super::*;
use crate::secrets::*;
use SecretKind::*;

#[test]
fn redacts_secret_table() {
    let redactor = Redactor::default();
    let table = secret_table();
    assert!(table.len() >= 40, "{} cases", table.len());
    let mut failures = Vec::new();
    for (text, secret, kind) in &table {
        let out = redactor.redact(text);
        let spans: Vec<(SecretKind, &str)> = out
            .found
            .iter()
            .map(|r| (r.kind, &text[r.start..r.end]))
            .collect();
        let expected = text.replace(secret.as_str(), &format!("[REDACTED:{kind}]"));
        if spans != [(*kind, secret.as_str())] || out.text != expected {
            failures.push(format!("{text:?}\n  → {:?}\n  found {spans:?}", out.text));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn leaves_look_alikes_alone() {
    let table: &[&str] = &[
        "Released version 1.2.3 yesterday, then 1.0.0+20130313144700.",
        "The deadline is 2024-01-15, or 15/01/2024, or 01.02.2024.",
        "Meet at 15:30 in room 4, stamp 2024-01-15T10:30:00+01:00.",
        "Ping 192.168.1.10 and 10.0.0.1 from the VPN.",
        "The request id is 550e8400-e29b-41d4-a716-446655440000.",
        "Fixed in commit 3f2a9c1e5b7d4a6f8e0c2b4d6f8a0c2e4b6d8f0a.",
        "The test card 4111 1111 1111 1112 fails Luhn.",
        "A typo: GB83 WEST 1234 5698 7654 32 fails the checksum.",
        "We wrote sk-learn-compatible-transformers for the baseline.",
        "Reset your password: use the link we sent.",
        "The password field is required.",
        "Each token costs a fraction of a cent; token: see the docs.",
        "Order 12345 shipped, invoice 2024-0042.",
        "ISBN 978-0-306-40615-7 and ISBN 0-306-40615-2.",
        "The brand colour is #ff5733 on #1a1a1a.",
        "Logs are in /var/log/cairn/2024-01-15.log and C:\\Users\\me.",
        "AKIA keys start with a fixed prefix, like AKIAEXAMPLE.",
        "@alice reviewed @app.route('/login') and @types/node@20.1.0.",
        "Clone git@github.com:cairn/cairn.git and use logo@2x.png.",
        "Set max_tokens=4096 and token_count: 512.",
        "Bearer tokens expire after an hour.",
        "password = os.environ['DB_PASSWORD'] and token = get_token()",
        "export TOKEN=$GITHUB_TOKEN; password: ${DB_PASSWORD}; api_key=<your-key>",
        "Health at http://localhost:8080/health and https://example.com:443/a@b",
        "Unix time 1705312800000 in milliseconds.",
        "Call extension 555-0132 inside the building.",
        "Grew 300% between 2019 and 2024, to 1,234,567.89 users.",
        "Paris is at 48.8566, 2.3522.",
        r#"{"token": null, "password": "", "secret": true}"#,
        "The password is stored as a bcrypt hash.",
        "PWD=/home/alice and secret=./keys/dev.pem",
    ];
    assert!(table.len() >= 20);
    let redactor = Redactor::default();
    let failures: Vec<String> = table
        .iter()
        .filter_map(|text| {
            let out = redactor.redact(text);
            (out.text != *text || !out.is_clean()).then(|| format!("{text:?}\n  → {:?}", out.text))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn spans_point_into_the_original_text() {
    let text = "mail alice@example.com or call +44 20 7946 0958, card 4111 1111 1111 1111";
    let out = Redactor::default().redact(text);
    let spans: Vec<&str> = out.found.iter().map(|r| &text[r.start..r.end]).collect();
    assert_eq!(
        spans,
        [
            "alice@example.com",
            "+44 20 7946 0958",
            "4111 1111 1111 1111"
        ]
    );
    assert_eq!(
        out.text,
        "mail [REDACTED:email] or call [REDACTED:phone], card [REDACTED:card_number]"
    );
    assert_eq!(out.count(), 3);
}

#[test]
fn redacting_twice_changes_nothing() {
    let redactor = Redactor::default();
    let all: Vec<String> = secret_table().into_iter().map(|(t, _, _)| t).collect();
    let once = redactor.redact(&all.join("\n"));
    let twice = redactor.redact(&once.text);
    assert_eq!(twice.text, once.text);
    assert!(twice.is_clean(), "{:?}", twice.found);
}

#[test]
fn a_kind_switched_off_is_left_alone() {
    let text = "alice@example.com paid with 4111 1111 1111 1111";
    let kinds = SecretKind::ALL.into_iter().filter(|k| *k != Email);
    let redactor = Redactor::new(kinds);
    assert!(!redactor.applies(Email));
    assert_eq!(
        redactor.redact(text).text,
        "alice@example.com paid with [REDACTED:card_number]"
    );
    let only_email = Redactor::new([Email]);
    assert_eq!(only_email.kinds().collect::<Vec<_>>(), [Email]);
    assert_eq!(
        only_email.redact(text).text,
        "[REDACTED:email] paid with 4111 1111 1111 1111"
    );
    assert!(Redactor::new([]).redact(text).is_clean());
}

#[test]
fn unicode_around_secrets_survives() {
    let text = "Привет, 東京 ✓ écris à alice@example.com — 🎉 password=Sécurité9 fin";
    let out = Redactor::default().redact(text);
    assert_eq!(
        out.text,
        "Привет, 東京 ✓ écris à [REDACTED:email] — 🎉 password=[REDACTED:credential] fin"
    );
}

#[test]
fn overlaps_go_to_the_earliest_then_longest_match() {
    // A JWT that is also a `token=` value and a `Bearer` credential is
    // reported once, as the kind listed first.
    let text = format!("token={JWT} and Authorization: Bearer {JWT}");
    let out = Redactor::default().redact(&text);
    let kinds: Vec<SecretKind> = out.found.iter().map(|r| r.kind).collect();
    assert_eq!(kinds, [Jwt, Jwt]);
    // With JWTs off, the same spans fall to the next rules.
    let out = Redactor::new(SecretKind::ALL.into_iter().filter(|k| *k != Jwt)).redact(&text);
    let kinds: Vec<SecretKind> = out.found.iter().map(|r| r.kind).collect();
    assert_eq!(kinds, [Credential, BearerToken]);
}

#[test]
fn an_unterminated_key_block_loses_its_base64_lines() {
    let text = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n\nthe rest was cut";
    let out = Redactor::default().redact(text);
    assert_eq!(out.text, "[REDACTED:private_key]\n\nthe rest was cut");
}

#[test]
fn clean_text_comes_back_unchanged() {
    let text = "Nothing to hide here: just a note about the build.";
    let out = Redactor::default().redact(text);
    assert_eq!(out.text, text);
    assert!(out.is_clean());
    assert_eq!(Redactor::default().redact("").text, "");
}

#[test]
fn kind_names_round_trip() {
    for kind in SecretKind::ALL {
        assert_eq!(kind.as_str().parse::<SecretKind>(), Ok(kind));
        assert_eq!(kind.to_string(), kind.as_str());
        let json = serde_json::to_string(&kind).unwrap();
        assert_eq!(json, format!("\"{}\"", kind.as_str()));
    }
    assert_eq!(" Card-Number ".parse::<SecretKind>(), Ok(CardNumber));
    assert!("password".parse::<SecretKind>().is_err());
}

#[test]
fn checksums() {
    let digits = |s: &str| s.bytes().map(|b| b - b'0').collect::<Vec<u8>>();
    assert!(luhn_valid(&digits("4111111111111111")));
    assert!(luhn_valid(&digits("378282246310005")));
    assert!(!luhn_valid(&digits("4111111111111112")));
    assert!(iban_checksum_valid("GB82WEST12345698765432"));
    assert!(iban_checksum_valid("DE89370400440532013000"));
    assert!(!iban_checksum_valid("GB83WEST12345698765432"));
}
