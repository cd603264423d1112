//! Proactive content negotiation on `Accept` (RFC 9110 §12.5.1) for
//! `GET /catalog`: parse the field into media ranges, give every
//! representation we serve the quality of the most specific range that
//! matches it, and pick the best.
//!
//! ```text
//! Accept      = #( media-range [ weight ] )
//! media-range = ( "*/*" / ( type "/*" ) / ( type "/" subtype ) ) parameters
//! parameters  = *( OWS ";" OWS [ token "=" ( token / quoted-string ) ] )
//! weight      = OWS ";" OWS "q=" qvalue
//! qvalue      = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
//! ```
//!
//! Rules, in the order they decide:
//!
//! 1. No `Accept` field, or fields holding only empty list elements (which
//!    RFC 9110 §5.6.1 says to ignore): anything is acceptable, so the
//!    server's first choice, JSON, is served.
//! 2. Each representation takes the `q` of the *most specific* range that
//!    matches it (`type/subtype;param` > `type/subtype` > `type/*` > `*/*`);
//!    among equally specific matches the first listed wins. No match means
//!    `q = 0`: not acceptable.
//! 3. The highest `q` above 0 wins; ties go to the server's order,
//!    [`OFFERS`]: JSON, MessagePack, Protobuf, Avro, FlatBuffers.
//! 4. Nothing above 0 → [`Error::NotAcceptable`] (the route answers 406 with
//!    the list of media types). A field that does not follow the grammar →
//!    [`Error::Malformed`] (400, with the byte offset).
//!
//! Media-type parameters on a range narrow it (RFC 9110 §12.5.1: a range
//! with parameters applies only to representations with those parameters).
//! Our representations carry none, except that JSON is always UTF-8, so a
//! range with parameters matches only `application/json;charset=utf-8`.
//! Parameters after `q` are the RFC 7231 `accept-ext` and are ignored.
//!
//! `application/x-protobuf` is served as an alias of `application/protobuf`:
//! a client that names only the alias gets the alias back as the
//! `Content-Type`.
//!
//! Memory: ranges are matched as they are parsed, so choosing allocates
//! nothing; the field itself is bounded by the server's header limits.

use crate::codec::Format;
use std::fmt;

/// One representation `/catalog` can serve: its format and the media type
/// that names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offer {
    pub format: Format,
    pub media_type: &'static str,
}

/// What `/catalog` serves, in the server's order of preference.
pub const OFFERS: [Offer; 6] = [
    Offer {
        format: Format::Json,
        media_type: "application/json",
    },
    Offer {
        format: Format::Msgpack,
        media_type: "application/vnd.msgpack",
    },
    Offer {
        format: Format::Protobuf,
        media_type: "application/protobuf",
    },
    Offer {
        format: Format::Avro,
        media_type: "avro/binary",
    },
    Offer {
        format: Format::Flatbuffers,
        media_type: "application/x-flatbuffers",
    },
    Offer {
        format: Format::Protobuf,
        media_type: "application/x-protobuf",
    },
];

/// Why no representation was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Every representation has `q = 0` under the field's ranges.
    NotAcceptable,
    /// The field does not follow the grammar: where (byte offset within the
    /// field value), what was expected, and what was found.
    Malformed {
        offset: usize,
        expected: &'static str,
        found: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotAcceptable => write!(f, "no representation is acceptable"),
            Error::Malformed {
                offset,
                expected,
                found,
            } => write!(f, "Accept: expected {expected} at byte {offset}, found {found}"),
        }
    }
}

/// One media range of an `Accept` field, borrowed from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MediaRange<'a> {
    /// `*` or a type token.
    pub type_: &'a str,
    /// `*` or a subtype token.
    pub subtype: &'a str,
    /// The weight in thousandths: 0 ..= 1000 (default 1000).
    pub q: u16,
    /// Media-type parameters before `q` (they make the range more specific).
    pub params: u16,
    /// Whether every such parameter is `charset=utf-8` (case-insensitive).
    pub only_utf8_charset: bool,
}

impl MediaRange<'_> {
    /// 0 for `*/*`, 1 for `type/*`, 2 for `type/subtype`, plus one per parameter.
    pub fn specificity(&self) -> u32 {
        let base = match (self.type_, self.subtype) {
            ("*", _) => 0,
            (_, "*") => 1,
            _ => 2,
        };
        base + u32::from(self.params)
    }

    /// Whether this range includes `media_type` (a `type/subtype` without parameters).
    pub fn matches(&self, media_type: &str) -> bool {
        let Some((t, s)) = media_type.split_once('/') else {
            return false;
        };
        let names = match (self.type_, self.subtype) {
            ("*", _) => true,
            (ty, "*") => ty.eq_ignore_ascii_case(t),
            (ty, sub) => ty.eq_ignore_ascii_case(t) && sub.eq_ignore_ascii_case(s),
        };
        names && (self.params == 0 || (self.only_utf8_charset && media_type == "application/json"))
    }
}

/// Picks the representation for the `Accept` field values `fields` (one per
/// `Accept` line, in order; none when the request had no `Accept`).
pub fn choose<'a>(fields: impl IntoIterator<Item = &'a [u8]>) -> Result<Offer, Error> {
    // Per offer: (specificity, q) of the best range so far.
    let mut best: [Option<(u32, u16)>; OFFERS.len()] = [None; OFFERS.len()];
    let mut any_range = false;
    for field in fields {
        parse_each(field, |range| {
            any_range = true;
            let spec = range.specificity();
            for (slot, offer) in best.iter_mut().zip(OFFERS) {
                if range.matches(offer.media_type) && slot.is_none_or(|(s, _)| spec > s) {
                    *slot = Some((spec, range.q));
                }
            }
        })?;
    }
    if !any_range {
        return Ok(OFFERS[0]);
    }
    let mut chosen: Option<(u16, Offer)> = None;
    for (slot, offer) in best.iter().zip(OFFERS) {
        if let Some((_, q)) = *slot
            && q > 0
            && chosen.is_none_or(|(cq, _)| q > cq)
        {
            chosen = Some((q, offer));
        }
    }
    chosen.map(|(_, offer)| offer).ok_or(Error::NotAcceptable)
}

/// Parses one `Accept` field value into its media ranges, in order.
pub fn parse(field: &[u8]) -> Result<Vec<MediaRange<'_>>, Error> {
    let mut out = Vec::new();
    parse_each(field, |r| out.push(r))?;
    Ok(out)
}

/// Calls `each` for every media range of `field`, in order.
fn parse_each<'a>(field: &'a [u8], mut each: impl FnMut(MediaRange<'a>)) -> Result<(), Error> {
    let mut c = Cursor { s: field, pos: 0 };
    loop {
        c.skip_ows();
        match c.peek() {
            None => return Ok(()),
            Some(b',') => {
                c.pos += 1; // an empty list element (RFC 9110 §5.6.1)
                continue;
            }
            Some(_) => {}
        }
        let type_ = c.token("a media type (token or *)")?;
        c.expect(b'/', "'/' after the media type")?;
        let subtype = c.token("a media subtype (token or *)")?;
        if type_ == "*" && subtype != "*" {
            return Err(c.error_at(c.pos - subtype.len(), "'*' after '*/' (only */* has a wildcard type)"));
        }
        let mut range = MediaRange {
            type_,
            subtype,
            q: 1000,
            params: 0,
            only_utf8_charset: true,
        };
        let mut after_q = false;
        loop {
            c.skip_ows();
            match c.peek() {
                None | Some(b',') => break,
                Some(b';') => c.pos += 1,
                Some(_) => return Err(c.error_here("';', ',' or the end of the field")),
            }
            c.skip_ows();
            if matches!(c.peek(), None | Some(b',' | b';')) {
                continue; // an empty parameter
            }
            let name = c.token("a parameter name")?;
            c.expect(b'=', "'=' after the parameter name")?;
            if name.eq_ignore_ascii_case("q") && !after_q {
                range.q = c.qvalue()?;
                after_q = true;
                continue;
            }
            let value = c.param_value()?;
            if !after_q {
                range.params = range.params.saturating_add(1);
                range.only_utf8_charset &= name.eq_ignore_ascii_case("charset")
                    && (value.eq_ignore_ascii_case(b"utf-8") || value.eq_ignore_ascii_case(b"\"utf-8\""));
            }
        }
        each(range);
    }
}

/// A position in one field value; every error names it.
struct Cursor<'a> {
    s: &'a [u8],
    pos: usize,
}

/// `tchar` of RFC 9110 §5.6.2.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn skip_ows(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
    }

    fn error_at(&self, offset: usize, expected: &'static str) -> Error {
        let found = match self.s.get(offset) {
            None => "the end of the field".to_string(),
            Some(&b) if b.is_ascii_graphic() => format!("{:?}", b as char),
            Some(&b) => format!("byte 0x{b:02x}"),
        };
        Error::Malformed {
            offset,
            expected,
            found,
        }
    }

    fn error_here(&self, expected: &'static str) -> Error {
        self.error_at(self.pos, expected)
    }

    fn expect(&mut self, b: u8, expected: &'static str) -> Result<(), Error> {
        if self.peek() == Some(b) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error_here(expected))
        }
    }

    fn token(&mut self, expected: &'static str) -> Result<&'a str, Error> {
        let start = self.pos;
        while self.peek().is_some_and(is_tchar) {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.error_here(expected));
        }
        // tchar bytes are ASCII.
        std::str::from_utf8(&self.s[start..self.pos]).map_err(|_| self.error_at(start, expected))
    }

    /// A token or a quoted-string (returned with its quotes).
    fn param_value(&mut self) -> Result<&'a [u8], Error> {
        let start = self.pos;
        if self.peek() != Some(b'"') {
            self.token("a parameter value (token or quoted-string)")?;
            return Ok(&self.s[start..self.pos]);
        }
        self.pos += 1;
        loop {
            match self.peek() {
                None => return Err(self.error_here("'\"' closing the quoted-string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(&self.s[start..self.pos]);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    if self.peek().is_none() {
                        return Err(self.error_here("a character after '\\'"));
                    }
                    self.pos += 1;
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    /// `qvalue` in thousandths.
    fn qvalue(&mut self) -> Result<u16, Error> {
        const EXPECTED: &str = "a qvalue (0, 0.xyz, 1 or 1.000)";
        let start = self.pos;
        let whole = match self.peek() {
            Some(b'0') => 0u16,
            Some(b'1') => 1,
            _ => return Err(self.error_here(EXPECTED)),
        };
        self.pos += 1;
        let mut millis = whole * 1000;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            let mut scale = 100;
            while let Some(d @ b'0'..=b'9') = self.peek() {
                if scale == 0 {
                    return Err(self.error_here("at most three digits after the point"));
                }
                millis += u16::from(d - b'0') * scale;
                scale /= 10;
                self.pos += 1;
            }
        }
        if millis > 1000 {
            return Err(self.error_at(start, EXPECTED));
        }
        Ok(millis)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The media type chosen for `accept` (one field), or the error text.
    fn pick(accept: &str) -> Result<&'static str, String> {
        choose([accept.as_bytes()])
            .map(|o| o.media_type)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn no_accept_or_any_gives_json() {
        assert_eq!(choose([]).unwrap().format, Format::Json);
        for accept in ["", " , ,", "*/*", "application/*", "*/*;q=0.1", "text/html, */*;q=0.8"] {
            assert_eq!(pick(accept), Ok("application/json"), "{accept:?}");
        }
    }

    #[test]
    fn exact_types_and_the_alias() {
        for offer in OFFERS {
            assert_eq!(pick(offer.media_type), Ok(offer.media_type));
        }
        assert_eq!(pick("APPLICATION/VND.MSGPACK"), Ok("application/vnd.msgpack"));
        assert_eq!(pick("avro/*"), Ok("avro/binary"));
        // Both protobuf names acceptable alike: the canonical one wins.
        assert_eq!(
            pick("application/x-protobuf, application/protobuf"),
            Ok("application/protobuf")
        );
    }

    #[test]
    fn q_values_decide() {
        assert_eq!(
            pick("application/json;q=0.5, application/vnd.msgpack"),
            Ok("application/vnd.msgpack")
        );
        assert_eq!(
            pick("application/json;q=0.5, application/protobuf;q=0.501"),
            Ok("application/protobuf")
        );
        assert_eq!(
            pick("avro/binary;q=1.000, application/json;q=1"),
            Ok("application/json")
        );
        assert_eq!(pick("application/json; Q=0 , */*"), Ok("application/vnd.msgpack"));
    }

    #[test]
    fn the_most_specific_range_wins() {
        // application/* allows JSON at 0.9, but the exact range refuses it.
        assert_eq!(
            pick("application/*;q=0.9, application/json;q=0"),
            Ok("application/vnd.msgpack")
        );
        // */* at 1, but every application/ type only at 0.2: avro wins.
        assert_eq!(pick("*/*, application/*;q=0.2"), Ok("avro/binary"));
        // A parameterised range is more specific than the bare type.
        assert_eq!(
            pick("application/json;q=0, application/json;charset=utf-8;q=0.7"),
            Ok("application/json")
        );
        // Parameters we cannot satisfy make the range match nothing.
        assert_eq!(
            pick("application/json;version=2"),
            Err("no representation is acceptable".into())
        );
        // Parameters after q are accept-ext: ignored.
        assert_eq!(
            pick("application/vnd.msgpack;q=0.5;ext=\"a,b\""),
            Ok("application/vnd.msgpack")
        );
    }

    #[test]
    fn several_fields_are_one_list() {
        let fields: [&[u8]; 2] = [b"application/json;q=0.1", b"avro/binary"];
        assert_eq!(choose(fields).unwrap().media_type, "avro/binary");
    }

    #[test]
    fn nothing_acceptable() {
        for accept in ["text/html", "*/*;q=0", "image/*, text/*", "application/*;q=0"] {
            assert_eq!(
                pick(accept),
                Err("no representation is acceptable".into()),
                "{accept:?}"
            );
        }
    }

    #[test]
    fn malformed_fields_say_where() {
        for (accept, message) in [
            (
                "json",
                "Accept: expected '/' after the media type at byte 4, found the end of the field",
            ),
            (
                "application/",
                "Accept: expected a media subtype (token or *) at byte 12, found the end of the field",
            ),
            (
                "*/json",
                "Accept: expected '*' after '*/' (only */* has a wildcard type) at byte 2, found 'j'",
            ),
            (
                "text/html;q=2",
                "Accept: expected a qvalue (0, 0.xyz, 1 or 1.000) at byte 12, found '2'",
            ),
            (
                "text/html;q=1.5",
                "Accept: expected a qvalue (0, 0.xyz, 1 or 1.000) at byte 12, found '1'",
            ),
            (
                "text/html;q=0.1234",
                "Accept: expected at most three digits after the point at byte 17, found '4'",
            ),
            (
                "text/html;q",
                "Accept: expected '=' after the parameter name at byte 11, found the end of the field",
            ),
            (
                "text/html;a=\"x",
                "Accept: expected '\"' closing the quoted-string at byte 14, found the end of the field",
            ),
            (
                "text/html x",
                "Accept: expected ';', ',' or the end of the field at byte 10, found 'x'",
            ),
        ] {
            assert_eq!(pick(accept), Err(message.to_string()), "{accept:?}");
        }
    }

    #[test]
    fn parse_reports_ranges() {
        let ranges = parse(b"text/*;level=1;q=0.25, */*").unwrap();
        assert_eq!(ranges.len(), 2);
        assert_eq!((ranges[0].type_, ranges[0].subtype, ranges[0].q), ("text", "*", 250));
        assert_eq!((ranges[0].specificity(), ranges[1].specificity()), (2, 0));
        assert_eq!(ranges[1].q, 1000);
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut rng = crate::prng::Rng::new(16);
        let alphabet = b"*/;=,q. \t\"\\01aj-+\x80\xff";
        for _ in 0..20_000 {
            let len = rng.below(24) as usize;
            let field: Vec<u8> = (0..len).map(|_| *rng.pick(alphabet)).collect();
            if let Ok(offer) = choose([field.as_slice()]) {
                assert!(OFFERS.contains(&offer));
            }
        }
    }
}
