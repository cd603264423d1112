//! Proactive content negotiation on `Accept` (RFC 9110 §12.5.1) for the
//! negotiated payload routes: parse the field into media ranges, give every
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
//! 1. No `Accept` field, or only empty list elements (ignored, RFC 9110
//!    §5.6.1): the server's first choice, JSON.
//! 2. Each representation takes the `q` of the *most specific* matching range
//!    (`type/subtype;param` > `type/subtype` > `type/*` > `*/*`; among equals
//!    the first listed). No match: `q = 0`.
//! 3. The highest `q` above 0 wins; ties go to [`OFFERS`]' order.
//! 4. Nothing above 0: [`Error::NotAcceptable`] (406 listing the media types);
//!    a field off the grammar: [`Error::Malformed`] (400, with the offset).
//!
//! A range with parameters applies only to representations with those
//! parameters: ours have none, except that JSON is always UTF-8, so such a
//! range matches only `application/json;charset=utf-8`. Parameters after `q`
//! are RFC 7231's `accept-ext`, ignored. `application/x-protobuf` is an alias
//! of `application/protobuf`, echoed as the `Content-Type` when named alone.
//! Ranges are matched as they are parsed: choosing allocates nothing.

use crate::codec::Format;
use std::fmt;

/// One representation `/catalog` can serve: its format and the media type
/// that names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offer {
    pub format: Format,
    pub media_type: &'static str,
}

/// What the negotiated routes serve, in the server's order of preference.
pub const OFFERS: [Offer; 6] = [
    offer(Format::Json, "application/json"),
    offer(Format::Msgpack, "application/vnd.msgpack"),
    offer(Format::Protobuf, "application/protobuf"),
    offer(Format::Avro, "avro/binary"),
    offer(Format::Flatbuffers, "application/x-flatbuffers"),
    offer(Format::Protobuf, "application/x-protobuf"),
];

const fn offer(format: Format, media_type: &'static str) -> Offer {
    Offer { format, media_type }
}

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
    fn choices() {
        assert_eq!(choose([]).unwrap().format, Format::Json);
        for offer in OFFERS {
            assert_eq!(pick(offer.media_type), Ok(offer.media_type));
        }
        const NONE: &str = "no representation is acceptable";
        // One case a row: the field, " => ", the media type chosen or the error.
        for row in [
            // Anything will do: JSON.
            " => application/json",
            " , , => application/json",
            "*/* => application/json",
            "application/* => application/json",
            "*/*;q=0.1 => application/json",
            "text/html, */*;q=0.8 => application/json",
            "APPLICATION/VND.MSGPACK => application/vnd.msgpack",
            "avro/* => avro/binary",
            // Both protobuf names acceptable alike: the canonical one wins.
            "application/x-protobuf, application/protobuf => application/protobuf",
            // q values decide.
            "application/json;q=0.5, application/vnd.msgpack => application/vnd.msgpack",
            "application/json;q=0.5, application/protobuf;q=0.501 => application/protobuf",
            "avro/binary;q=1.000, application/json;q=1 => application/json",
            "application/json; Q=0 , */* => application/vnd.msgpack",
            // The most specific range wins: application/* allows JSON at 0.9,
            // but the exact range refuses it.
            "application/*;q=0.9, application/json;q=0 => application/vnd.msgpack",
            // */* at 1, but every application/ type only at 0.2: avro wins.
            "*/*, application/*;q=0.2 => avro/binary",
            // A parameterised range is more specific than the bare type.
            "application/json;q=0, application/json;charset=utf-8;q=0.7 => application/json",
            // Parameters after q are accept-ext: ignored.
            "application/vnd.msgpack;q=0.5;ext=\"a,b\" => application/vnd.msgpack",
            // Parameters we cannot satisfy make the range match nothing.
            "application/json;version=2 => no representation is acceptable",
            "text/html => no representation is acceptable",
            "*/*;q=0 => no representation is acceptable",
            "image/*, text/* => no representation is acceptable",
            "application/*;q=0 => no representation is acceptable",
        ] {
            let (accept, expected) = row.split_once(" => ").unwrap();
            let expected = if expected == NONE {
                Err(NONE.to_string())
            } else {
                Ok(expected)
            };
            assert_eq!(pick(accept), expected, "{accept:?}");
        }
    }

    #[test]
    fn several_fields_are_one_list() {
        let fields: [&[u8]; 2] = [b"application/json;q=0.1", b"avro/binary"];
        assert_eq!(choose(fields).unwrap().media_type, "avro/binary");
    }

    #[test]
    fn malformed_fields_say_where() {
        // One case a row: the field, " => ", what `Accept: expected ` is followed by.
        for row in [
            "json => '/' after the media type at byte 4, found the end of the field",
            "application/ => a media subtype (token or *) at byte 12, found the end of the field",
            "*/json => '*' after '*/' (only */* has a wildcard type) at byte 2, found 'j'",
            "text/html;q=2 => a qvalue (0, 0.xyz, 1 or 1.000) at byte 12, found '2'",
            "text/html;q=1.5 => a qvalue (0, 0.xyz, 1 or 1.000) at byte 12, found '1'",
            "text/html;q=0.1234 => at most three digits after the point at byte 17, found '4'",
            "text/html;q => '=' after the parameter name at byte 11, found the end of the field",
            "text/html;a=\"x => '\"' closing the quoted-string at byte 14, found the end of the field",
            "text/html x => ';', ',' or the end of the field at byte 10, found 'x'",
        ] {
            let (accept, message) = row.split_once(" => ").unwrap();
            assert_eq!(pick(accept), Err(format!("Accept: expected {message}")), "{accept:?}");
        }
    }

    #[test]
    fn parse_reports_ranges() {
        let mut ranges = Vec::new();
        parse_each(b"text/*;level=1;q=0.25, */*", |r| ranges.push(r)).unwrap();
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
