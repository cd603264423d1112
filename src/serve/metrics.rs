//! What `/metrics` counts `wirebench serve`'s replies under: the `route`
//! label of each reply ([`Label`]) and the server's [`Layout`] of them
//! ([`METRICS`]), the routes that serve a format split by format.

use crate::http::metrics::Layout;

/// The `route` label `/metrics` counts a reply under: an index into [`METRICS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label {
    /// Unknown paths, the page's and `--data`'s routes, and requests
    /// rejected before routing (the server's route 0).
    Other,
    Index,
    Ping,
    /// `/catalog/{format}`
    Catalog,
    /// `/catalog`, format chosen by `Accept`
    Negotiated,
    /// `/explain/{format}`
    Explain,
    Schemas,
    Metrics,
}

/// What `/metrics` counts replies under: each [`Label`]'s value, in its
/// order, the three that serve a format split by [`Format::ALL`](crate::codec::Format::ALL) (a reply's
/// variant is `format as u8`).
pub static METRICS: Layout = Layout::new(
    &[
        ("other", false),
        ("/", false),
        ("/ping", false),
        ("/catalog/{format}", true),
        ("/catalog", true),
        ("/explain/{format}", true),
        ("/schemas/{file}", false),
        ("/metrics", false),
    ],
    "format",
    &["json", "msgpack", "protobuf", "avro", "flatbuffers"],
    "Encoding one catalog response, by format.",
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Format;
    use crate::http::metrics::{Exposition, Registry};

    #[test]
    fn a_format_counts_under_its_own_name() {
        let registry = Registry::new(&METRICS);
        let block = registry.register();
        for (i, f) in Format::ALL.into_iter().enumerate() {
            block.record(Label::Catalog as u8, Some(f as u8), 200, i + 1, 1_000, 1_000);
        }
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut out = Vec::new();
        Exposition::new(&registry, &listener).render(&mut out);
        let text = String::from_utf8(out).unwrap();
        for (i, f) in Format::ALL.into_iter().enumerate() {
            let line = format!(
                "wirebench_http_response_bytes_total{{route=\"/catalog/{{format}}\",format=\"{}\",status=\"200\"}} {}",
                f.name(),
                i + 1
            );
            assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
        }
    }
}
