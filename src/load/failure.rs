//! Why a request did not count ([`FailureKind`]) and the counts by kind
//! ([`Errors`]) every driver adds up.

/// Why a request did not count. The order is the CSV column order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FailureKind {
    /// The TCP connect failed or timed out.
    Connect,
    /// Writing the request failed.
    Write,
    /// Reading failed, the peer closed mid-response, or the framing was malformed.
    Read,
    /// A read or write exceeded `--timeout` (polling driver: the whole response did).
    Timeout,
    /// The status was not 200.
    Status,
    /// The body did not gunzip or decode (or an unknown Content-Encoding).
    Decode,
    /// Decoded, but the wrong product count, the wrong Content-Encoding, or (for
    /// the first warm-up response) a field different from the fixture.
    Mismatch,
}

impl FailureKind {
    /// Every kind, in CSV column order.
    pub const ALL: [FailureKind; 7] = [
        FailureKind::Connect,
        FailureKind::Write,
        FailureKind::Read,
        FailureKind::Timeout,
        FailureKind::Status,
        FailureKind::Decode,
        FailureKind::Mismatch,
    ];

    /// The name in CSV columns (`err_<name>`) and summaries.
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Connect => "connect",
            FailureKind::Write => "write",
            FailureKind::Read => "read",
            FailureKind::Timeout => "timeout",
            FailureKind::Status => "status",
            FailureKind::Decode => "decode",
            FailureKind::Mismatch => "mismatch",
        }
    }
}

/// Failure counts by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Errors([u64; 7]);

impl Errors {
    pub fn add(&mut self, kind: FailureKind) {
        self.0[kind as usize] += 1;
    }

    pub fn get(&self, kind: FailureKind) -> u64 {
        self.0[kind as usize]
    }

    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    pub fn add_all(&mut self, other: &Errors) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }
}
