//! The clock, in UTC milliseconds.

use crate::kind::Timestamp;

/// The current time.
pub fn now() -> Timestamp {
    chrono::Utc::now().timestamp_millis()
}
