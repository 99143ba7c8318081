//! The redaction table: secrets of every kind Cairn redacts, each in a
//! sentence, for `redact.rs`'s unit tests and for the backends' tests that
//! grep their files for every secret after ingesting them all.

#![allow(missing_docs)]

use crate::redact::SecretKind;
use SecretKind::*;

pub const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

pub const RSA_KEY: &str = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----";

pub const OPENSSH_KEY: &str = "-----BEGIN OPENSSH PRIVATE KEY-----\r\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\r\nQyNTUxOQAAACDgVtEJx3ogYhMoPlKMRC0uyPeQ2u3WNsbWUa7CfkxwEwAAAJhJcR1DSXEd\r\n-----END OPENSSH PRIVATE KEY-----";

pub const EC_KEY: &str = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oNl7+ySxHjVUoAoGCCqGSM49\nAwEHoUQDQgAE8E2yQ3mGfGz6m0QJ9Q0pBvI1y4b2r7T6Yq1zj6mM3k=\n-----END EC PRIVATE KEY-----";

pub const PGP_KEY: &str = "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBF0rVd4BCADRm5z1vO3n0yD8bKd2m8YV7+0X2eOq3rL9QwZc\n=Xq3Z\n-----END PGP PRIVATE KEY BLOCK-----";

pub const AZURE_KEY: &str =
    "jIclHkCiHp6bR1IqfEouHgxzNNAL5wIScGebcy8F5n3/YNBDRzrZSgqbjG3uhkWKFLf6xuI5aHUQPFeNBTxaQW==";

/// `(text, secret, kind)`: `secret` is the one stretch of `text` that
/// must be replaced, as `kind`.
pub fn secret_table() -> Vec<(String, String, SecretKind)> {
    let plain: &[(&str, &str, SecretKind)] = &[
        ("export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE before running the deploy", "AKIAIOSFODNN7EXAMPLE", AwsAccessKey),
        ("the session key ASIAY34FZKBOKMUTVV7A expires in an hour", "ASIAY34FZKBOKMUTVV7A", AwsAccessKey),
        ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", AwsSecretKey),
        (r#"STS answered {"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}"#, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", AwsSecretKey),
        ("maps work with key=AIzaPtYgjmUhBel31iEl2hpChYgCfrL1spNxnyV now", "AIzaPtYgjmUhBel31iEl2hpChYgCfrL1spNxnyV", GoogleApiKey),
        ("I set OPENAI_API_KEY to sk-gJTeKdNnFRIBXuDL7DxtpYlSXpfKtHF4vUCsMehGAkWvj7FA yesterday", "sk-gJTeKdNnFRIBXuDL7DxtpYlSXpfKtHF4vUCsMehGAkWvj7FA", OpenaiKey),
        ("new project key: sk-proj-fjORS-6ilI8ihN5KXSc7Tvo-hBKqFYY-kv5ZJr3J-TAwR4y9ojfljoQoaF1LlqsajAIxNKu.", "sk-proj-fjORS-6ilI8ihN5KXSc7Tvo-hBKqFYY-kv5ZJr3J-TAwR4y9ojfljoQoaF1LlqsajAIxNKu", OpenaiKey),
        ("Claude runs with sk-ant-api03-qg6YYZYn9ZhyiA4uoRgnatmUdjAWtGSU8po_799NksnRH9ucAUsdMlHUvTCQCyEZDz-TddJ8HyS5SUkCnD8zRA9a9S-ZPf1QhAA in CI", "sk-ant-api03-qg6YYZYn9ZhyiA4uoRgnatmUdjAWtGSU8po_799NksnRH9ucAUsdMlHUvTCQCyEZDz-TddJ8HyS5SUkCnD8zRA9a9S-ZPf1QhAA", AnthropicKey),
        ("git push with ghp_6yYTWmE4lBYOvfZ8UzDzV8fUkkibjL5DZPjN works", "ghp_6yYTWmE4lBYOvfZ8UzDzV8fUkkibjL5DZPjN", GithubToken),
        ("the OAuth app returned gho_0MEQ7wjJJibaZUPgHV7iB3m03nbqnsGpWLuq", "gho_0MEQ7wjJJibaZUPgHV7iB3m03nbqnsGpWLuq", GithubToken),
        ("(user-to-server ghu_IA1id6Vw5DQL05HA064GiIjHGb3CXlMaXZjl)", "ghu_IA1id6Vw5DQL05HA064GiIjHGb3CXlMaXZjl", GithubToken),
        ("the Action got ghs_jENUhJduRHHJEYXg4JdpmrcXgGCJbW56eCuN from the app", "ghs_jENUhJduRHHJEYXg4JdpmrcXgGCJbW56eCuN", GithubToken),
        ("refresh with ghr_GMGmSrCGIZEG8pSH4487q7J58m1CiAhzCueQ;", "ghr_GMGmSrCGIZEG8pSH4487q7J58m1CiAhzCueQ", GithubToken),
        ("fine-grained 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 for the bot", "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", GithubToken),
        ("GitLab CI uses glpat-R08qzjI6GKFSufrdZSlB for the registry", "glpat-R08qzjI6GKFSufrdZSlB", GitlabToken),
        ("the bot token is xoxb-2048137650-4096813572-Rk3WqLd9pZt8YbVn2MxC1aHs", "xoxb-2048137650-4096813572-Rk3WqLd9pZt8YbVn2MxC1aHs", SlackToken),
        ("user token xoxp-1234567890-0987654321-1122334455-a1b2c3d4e5f6a7b8 was revoked", "xoxp-1234567890-0987654321-1122334455-a1b2c3d4e5f6a7b8", SlackToken),
        ("post alerts to https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX please", "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", SlackWebhook),
        ("Stripe live key sk_live_fErGPmpGXafq0fjzLczbttOo goes in the vault", "sk_live_fErGPmpGXafq0fjzLczbttOo", StripeKey),
        ("a restricted key rk_live_fL9H2WjQ5TY4MyWuUFjsUNPj for reports", "rk_live_fL9H2WjQ5TY4MyWuUFjsUNPj", StripeKey),
        ("tests use sk_test_c01T5GOBUSZGi6HWGK10Zb0R", "sk_test_c01T5GOBUSZGi6HWGK10Zb0R", StripeKey),
        ("curl -H 'Authorization: Bearer 72014b3ce107f80e222f828767efc2f9' https://api.example.com", "72014b3ce107f80e222f828767efc2f9", BearerToken),
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA==", BearerToken),
        ("connect to postgres://cairn:s3cr3t-P4ss@db.internal:5432/cairn today", "s3cr3t-P4ss", UrlPassword),
        ("clone https://deploy:hunter2@git.example.com/team/repo.git", "hunter2", UrlPassword),
        ("cache at redis://:p%40ssw0rd@cache.internal:6379/0", "p%40ssw0rd", UrlPassword),
        ("the .env has password=hunter2 in it", "hunter2", Credential),
        (r#"config: {"password": "correct horse battery staple", "user": "alice"}"#, "correct horse battery staple", Credential),
        ("DB_PASSWORD='Tr0ub4dor&3' ./run.sh", "Tr0ub4dor&3", Credential),
        ("settings.yaml says api_key: 9f8e7d6c5b4a3210", "9f8e7d6c5b4a3210", Credential),
        ("mytool login --password Zx9!kq2#Lm", "Zx9!kq2#Lm", Credential),
        ("client_secret := \"a8f5f167f44f4964e6c998dee827110c\"", "a8f5f167f44f4964e6c998dee827110c", Credential),
        ("GET /v1/items?access_token=abc123XYZ&page=2 failed", "abc123XYZ", Credential),
        ("Write to alice.smith@example.com about the outage.", "alice.smith@example.com", Email),
        ("cc bob+cairn@mail.example.co.uk, thanks", "bob+cairn@mail.example.co.uk", Email),
        ("Call me on +1 415 555 0132 after six.", "+1 415 555 0132", Phone),
        ("The London office is +44 20 7946 0958.", "+44 20 7946 0958", Phone),
        ("or +44 (0)20 7946 0958 from abroad", "+44 (0)20 7946 0958", Phone),
        ("Paris: +33 1 23 45 67 89", "+33 1 23 45 67 89", Phone),
        ("Berlin +49 30 901820 during office hours", "+49 30 901820", Phone),
        ("Reception (415) 555-0132 is open.", "(415) 555-0132", Phone),
        ("text 415-555-0132 when you land", "415-555-0132", Phone),
        ("ring 020 7946 0958 tomorrow", "020 7946 0958", Phone),
        ("mobile 07700 900123, landline later", "07700 900123", Phone),
        ("Paid with 4111 1111 1111 1111 on Monday", "4111 1111 1111 1111", CardNumber),
        ("card 5555555555554444 exp 12/29", "5555555555554444", CardNumber),
        ("Amex 378282246310005 was declined", "378282246310005", CardNumber),
        ("Amex 3782 822463 10005 as printed", "3782 822463 10005", CardNumber),
        ("Visa 4111-1111-1111-1111.", "4111-1111-1111-1111", CardNumber),
        ("Discover 6011 1111 1111 1117 works", "6011 1111 1111 1117", CardNumber),
        ("Transfer to GB82 WEST 1234 5698 7654 32 by Friday", "GB82 WEST 1234 5698 7654 32", Iban),
        ("IBAN: DE89370400440532013000.", "DE89370400440532013000", Iban),
        ("rent goes to FR1420041010050500013M02606 monthly", "FR1420041010050500013M02606", Iban),
        ("Dutch account NL91ABNA0417164300", "NL91ABNA0417164300", Iban),
        ("Swiss CH93 0076 2011 6238 5295 7 OK", "CH93 0076 2011 6238 5295 7", Iban),
    ];
    let mut table: Vec<(String, String, SecretKind)> = plain
        .iter()
        .map(|&(t, s, k)| (t.to_string(), s.to_string(), k))
        .collect();
    let mut add = |text: String, secret: &str, kind| table.push((text, secret.to_string(), kind));
    add(format!("the session cookie was {JWT}."), JWT, Jwt);
    add(format!("Authorization: Bearer {JWT}"), JWT, Jwt);
    add(format!("token={JWT}"), JWT, Jwt);
    add(
        format!("I pasted this by mistake:\n{RSA_KEY}\nsorry"),
        RSA_KEY,
        PrivateKey,
    );
    add(
        format!("~/.ssh/id_ed25519 holds\r\n{OPENSSH_KEY}\r\n"),
        OPENSSH_KEY,
        PrivateKey,
    );
    add(format!("{EC_KEY} is the signing key"), EC_KEY, PrivateKey);
    add(format!("backup key:\n{PGP_KEY}"), PGP_KEY, PrivateKey);
    add(
        format!("DefaultEndpointsProtocol=https;AccountName=cairn;AccountKey={AZURE_KEY};EndpointSuffix=core.windows.net"),
        AZURE_KEY,
        AzureStorageKey,
    );
    add(
        "Schreib an jürgen.müller@example.de bitte".into(),
        "jürgen.müller@example.de",
        Email,
    );
    table
}
