//! The background jobs' lease between two servers' [`Lease`]s on one
//! store: one holds it, the other waits until it runs out or is released.

use std::time::Duration;

use cairn_server::jobs::Lease;

use crate::{blocking, keyed_state};

#[test]
fn one_lease_holder_at_a_time_and_the_next_once_it_runs_out_or_is_released() {
    let cairn = keyed_state().cairn;
    blocking(|| {
        let (a, b) = (
            Lease::new(Duration::from_secs(1)),
            Lease::new(Duration::from_secs(1)),
        );
        assert_ne!(a.holder(), b.holder());
        a.renew(&cairn);
        b.renew(&cairn);
        assert!(a.held() && !b.held());
        // Renewed by its holder, it stays with it.
        std::thread::sleep(Duration::from_millis(500));
        a.renew(&cairn);
        std::thread::sleep(Duration::from_millis(300));
        b.renew(&cairn);
        assert!(a.held() && !b.held());
        // Unrenewed, it runs out for its holder too, and the other takes it.
        std::thread::sleep(Duration::from_millis(800));
        assert!(
            !a.held(),
            "a holder stops at its lease's end by its own clock"
        );
        b.renew(&cairn);
        assert!(b.held());
        a.renew(&cairn);
        assert!(!a.held());
        // Released, it goes to the next to ask at once.
        b.release(&cairn);
        assert!(!b.held());
        a.renew(&cairn);
        assert!(a.held());
    });
}
