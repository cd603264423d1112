//! [`CatalogView`]: a validated catalog that borrows its payload, and the one
//! place that dispatches over the five formats' view readers
//! ([`FormatReader`]). Each format's `view` module imports only the shared
//! types of [`view`](super::view); this module sits above them all.
//!
//! [`Format::decode_view`](super::Format::decode_view) runs the format's
//! reader to the end once (every check, every error at its offset) and keeps
//! its starting position; [`CatalogView::iter`] reads the products again,
//! lazily, as [`ProductView`]s.

use super::view::{ProductReader, ProductView};
use super::{DecodeError, avro, flatbuffers, json, msgpack, protobuf};
use crate::model::Catalog;
use std::fmt;

/// One format's view reader, at its first product.
#[derive(Clone)]
pub(crate) enum FormatReader<'a> {
    Json(json::view::ViewReader<'a>),
    Msgpack(msgpack::view::ViewReader<'a>),
    Protobuf(protobuf::view::ViewReader<'a>),
    Avro(avro::view::ViewReader<'a>),
    Flatbuffers(flatbuffers::view::ViewReader<'a>),
}

/// `$call` on whichever format's reader `$self` holds, bound to `$r`.
macro_rules! each_format {
    ($self:ident, $r:ident => $call:expr) => {
        match $self {
            FormatReader::Json($r) => $call,
            FormatReader::Msgpack($r) => $call,
            FormatReader::Protobuf($r) => $call,
            FormatReader::Avro($r) => $call,
            FormatReader::Flatbuffers($r) => $call,
        }
    };
}

impl<'a> FormatReader<'a> {
    fn next_product(&mut self, index: usize, p: &mut ProductView<'a>) -> Result<Option<usize>, DecodeError> {
        each_format!(self, r => r.next_product(index, p))
    }

    fn remaining(&self) -> usize {
        each_format!(self, r => r.remaining())
    }
}

/// A validated catalog that borrows its payload: the product count, and the
/// products read in place on demand.
#[derive(Clone)]
pub struct CatalogView<'a> {
    len: usize,
    payload_len: usize,
    reader: FormatReader<'a>,
}

impl<'a> CatalogView<'a> {
    /// A view of `len` products checked by `reader`'s format in a payload
    /// of `payload_len` bytes.
    pub(crate) fn new(len: usize, payload_len: usize, reader: FormatReader<'a>) -> CatalogView<'a> {
        CatalogView {
            len,
            payload_len,
            reader,
        }
    }

    /// Number of products.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The products in order, each read from the payload as it is reached.
    /// Every product was read and checked when the view was made, so an
    /// item is an error only if reading it again fails, which would be a
    /// bug; the iterator then yields that error and ends.
    pub fn iter(&self) -> Iter<'a> {
        Iter {
            reader: self.reader.clone(),
            index: 0,
            len: self.len,
            payload_len: self.payload_len,
        }
    }

    /// Copies the catalog into owned domain types: equal to what
    /// [`Format::decode`](super::Format::decode) returns for the payload.
    pub fn to_catalog(&self) -> Result<Catalog, DecodeError> {
        let mut products = Vec::with_capacity(self.len);
        for p in self.iter() {
            products.push(p?.to_product());
        }
        Ok(Catalog { products })
    }
}

impl fmt::Debug for CatalogView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Iterator over a [`CatalogView`]'s products.
pub struct Iter<'a> {
    reader: FormatReader<'a>,
    index: usize,
    len: usize,
    payload_len: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = Result<ProductView<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.index == self.len {
            return None;
        }
        let mut p = ProductView::default();
        let item = match self.reader.next_product(self.index, &mut p) {
            Ok(Some(_)) => Ok(p),
            Ok(None) => Err(DecodeError::eof(
                self.payload_len - self.reader.remaining().min(self.payload_len),
                "a product the view counted",
            )),
            Err(e) => Err(e),
        };
        self.index = if item.is_ok() { self.index + 1 } else { self.len };
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len - self.index;
        (n, Some(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Format;
    use crate::fixtures;

    /// A view whose reader runs out (or fails) before its count yields the
    /// error instead of ending early: iteration never hides a failed read.
    #[test]
    fn a_failed_read_again_is_an_error_not_the_end() {
        let c = fixtures::catalog(3);
        for format in Format::ALL {
            let bytes = format.encode_to_vec(&c.products).unwrap();
            let view = format.decode_view(&bytes).unwrap();
            assert_eq!(view.to_catalog().unwrap(), c, "{format}");
            let longer = CatalogView::new(view.len() + 1, bytes.len(), view.reader.clone());
            let items: Vec<_> = longer.iter().collect();
            assert_eq!(items.len(), 4, "{format}");
            assert!(items[..3].iter().all(Result::is_ok), "{format}");
            let e = items[3].as_ref().unwrap_err();
            assert!(e.to_string().contains("a product the view counted"), "{format}: {e}");
            assert!(longer.to_catalog().is_err(), "{format}");
        }
    }
}
