//! Element types an application reduces, and their little-endian wire encoding.

use collwire_proto::Datatype;

/// A Rust type with a collwire datatype.
pub trait Element: Copy + Send + 'static {
    const DATATYPE: Datatype;
    /// Appends the little-endian encoding.
    fn put(self, out: &mut Vec<u8>);
    /// Decodes from exactly `DATATYPE.size()` little-endian bytes.
    fn get(bytes: &[u8]) -> Self;
}

macro_rules! element {
    ($t:ty, $d:ident) => {
        impl Element for $t {
            const DATATYPE: Datatype = Datatype::$d;
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("element width"))
            }
        }
    };
}

element!(i32, Int32);
element!(u32, Uint32);
element!(i64, Int64);
element!(u64, Uint64);
element!(f32, F32);
element!(f64, F64);

/// Encodes a slice.
pub fn to_bytes<T: Element>(data: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() * T::DATATYPE.size());
    data.iter().for_each(|x| x.put(&mut out));
    out
}

/// Decodes a byte buffer of whole elements.
pub fn from_bytes<T: Element>(bytes: &[u8]) -> Vec<T> {
    bytes.chunks_exact(T::DATATYPE.size()).map(T::get).collect()
}
