//! [`SharedState`]: web UI sessions stored by hash with their expiry and
//! caps, rate buckets that follow [`refill_and_take`] (also when several
//! threads take from one bucket at once), and leases held by one holder
//! at a time.

use std::sync::Arc;

use crate::shared::{refill_and_take, SessionCaps, UiSessionRecord, BUCKET_IDLE_MS};
use crate::store::Store;

use super::T0;

fn session(n: u8, key_id: &str, created_at: i64) -> UiSessionRecord {
    UiSessionRecord {
        hash: [n; 32],
        key_id: key_id.into(),
        created_at,
        expires_at: created_at + 3_600_000,
    }
}

/// Sessions: found by hash until they expire or end; a key past its cap
/// loses its oldest; a full store refuses; expired ones are swept.
pub fn check_ui_sessions(store: Arc<dyn Store>) {
    let s = store.shared();
    let caps = SessionCaps {
        max_sessions: 4,
        per_key: 2,
    };
    assert!(s.start_ui_session(&session(1, "ka", T0), caps, T0).unwrap());
    let got = s.ui_session(&[1; 32], T0 + 1).unwrap().expect("stored");
    assert_eq!(got, session(1, "ka", T0));
    assert!(s.ui_session(&[9; 32], T0).unwrap().is_none());
    assert!(
        s.ui_session(&[1; 32], T0 + 3_600_000).unwrap().is_none(),
        "expired at its expiry time"
    );
    // A key's third session ends its oldest, nobody else's.
    assert!(s
        .start_ui_session(&session(2, "kb", T0 + 1), caps, T0 + 1)
        .unwrap());
    assert!(s
        .start_ui_session(&session(3, "ka", T0 + 2), caps, T0 + 2)
        .unwrap());
    assert!(s
        .start_ui_session(&session(4, "ka", T0 + 3), caps, T0 + 3)
        .unwrap());
    let now = T0 + 4;
    assert!(
        s.ui_session(&[1; 32], now).unwrap().is_none(),
        "oldest ended"
    );
    for live in [2, 3, 4] {
        assert!(s.ui_session(&[live; 32], now).unwrap().is_some(), "{live}");
    }
    // Four live in all: a fifth is refused and stores nothing.
    assert!(s
        .start_ui_session(&session(5, "kc", now), caps, now)
        .unwrap());
    assert!(!s
        .start_ui_session(&session(6, "kd", now), caps, now)
        .unwrap());
    assert!(s.ui_session(&[6; 32], now).unwrap().is_none());
    // Ending one makes room; ending it again ends nothing.
    assert!(s.end_ui_session(&[5; 32]).unwrap());
    assert!(!s.end_ui_session(&[5; 32]).unwrap());
    assert!(s.ui_session(&[5; 32], now).unwrap().is_none());
    assert!(s
        .start_ui_session(&session(6, "kd", now), caps, now)
        .unwrap());
    // Once they expire, sign-in makes room by dropping them, and the
    // sweep drops the rest.
    let later = T0 + 3_600_003;
    assert!(s
        .start_ui_session(&session(7, "ke", later), caps, later)
        .unwrap());
    assert!(s.ui_session(&[7; 32], later).unwrap().is_some());
    let swept = s.sweep_shared(T0 + 10 * 3_600_000).unwrap();
    assert!(swept >= 1, "{swept}");
    assert!(s.ui_session(&[7; 32], later).unwrap().is_none());
}

/// Rate buckets: each take is the formula's, buckets are apart, idle ones
/// are swept (and come back full), and concurrent takes never hand out
/// more tokens than the bucket holds.
pub fn check_rate_buckets(store: Arc<dyn Store>) {
    let s = store.shared();
    let (mut tokens, mut at) = (5.0, T0);
    for now in [
        T0,
        T0,
        T0 + 1,
        T0 + 3,
        T0 + 3,
        T0 + 4,
        T0 + 40_000,
        T0 + 40_000,
    ] {
        let want = refill_and_take(tokens, at, 5, now);
        let got = s.take_token("k1 write", 5, now).unwrap();
        assert_eq!(got.allowed, want.allowed, "at {now}");
        assert!((got.tokens - want.tokens).abs() < 1e-6, "{got:?} {want:?}");
        (tokens, at) = (want.tokens, at.max(now));
    }
    // Five allowed in a burst, the sixth refused.
    let allowed = (0..6)
        .filter(|_| s.take_token("k2 write", 5, T0).unwrap().allowed)
        .count();
    assert_eq!(allowed, 5);
    assert!(
        s.take_token("k2 read", 5, T0).unwrap().allowed,
        "another bucket"
    );
    // A clock behind refills nothing.
    assert!(!s.take_token("k2 write", 5, T0 - 30_000).unwrap().allowed);
    // Idle buckets go with the sweep; a new one starts full.
    let idle = T0 + 41_000 + BUCKET_IDLE_MS;
    assert!(s.sweep_shared(idle).unwrap() >= 3);
    assert_eq!(s.take_token("k2 write", 5, idle).unwrap().tokens, 4.0);
    // Eight threads, 100 takes of a 50-token bucket at one instant.
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let store = store.clone();
            std::thread::spawn(move || {
                (0..13)
                    .filter(|_| store.shared().take_token("busy", 50, T0).unwrap().allowed)
                    .count()
            })
        })
        .collect();
    let taken: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(taken, 50, "exactly the bucket's tokens, however many ask");
}

/// Leases: one holder at a time, renewed by its holder, taken by another
/// once its time runs out or it is released.
pub fn check_leases(store: Arc<dyn Store>) {
    let s = store.shared();
    assert!(s.hold_lease("jobs", "a", T0, T0 + 1000).unwrap());
    assert!(!s.hold_lease("jobs", "b", T0 + 10, T0 + 1010).unwrap());
    assert!(s.hold_lease("other", "b", T0, T0 + 1000).unwrap(), "apart");
    assert!(
        s.hold_lease("jobs", "a", T0 + 500, T0 + 1500).unwrap(),
        "renewed"
    );
    assert!(!s.hold_lease("jobs", "b", T0 + 1200, T0 + 2200).unwrap());
    assert!(
        s.hold_lease("jobs", "b", T0 + 1500, T0 + 2500).unwrap(),
        "ran out"
    );
    assert!(!s.hold_lease("jobs", "a", T0 + 1600, T0 + 2600).unwrap());
    // Releasing another's lease does nothing; releasing one's own frees it.
    s.release_lease("jobs", "a").unwrap();
    assert!(!s.hold_lease("jobs", "a", T0 + 1700, T0 + 2700).unwrap());
    s.release_lease("jobs", "b").unwrap();
    assert!(s.hold_lease("jobs", "a", T0 + 1800, T0 + 2800).unwrap());
    // Of many holders racing for a free lease, one wins.
    let handles: Vec<_> = (0..6)
        .map(|i| {
            let store = store.clone();
            std::thread::spawn(move || {
                store
                    .shared()
                    .hold_lease("race", &format!("h{i}"), T0, T0 + 1000)
                    .unwrap()
            })
        })
        .collect();
    let winners = handles
        .into_iter()
        .map(|h| h.join().unwrap())
        .filter(|won| *won)
        .count();
    assert_eq!(winners, 1);
}
