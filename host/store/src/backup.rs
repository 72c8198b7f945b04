//! The backup format: every pair of a store as it stood at one instant
//! ([`crate::Store::snapshot`]), in one file a restore reads back into any
//! backend.
//!
//! ```text
//! "CRM-BACKUP 1\n"
//! pair*    1u8, namespace length u16, namespace, key length u32, key, value length u32, value
//! end      0u8, pair count u64, SHA-256 of every byte before the end's own
//! ```
//!
//! Integers are big-endian. The checksum covers the magic line and every
//! pair, so a file cut short, a byte flipped or a pair lost in transit is
//! found by [`read`] before anything is restored from it.

use std::io::{self, Read, Write};

use sha2::{Digest, Sha256};

use crate::{KeyValue, Namespace};

const MAGIC: &[u8] = b"CRM-BACKUP 1\n";
const PAIR: u8 = 1;
const END: u8 = 0;

/// The longest key or value a backup is read with: a length past it is
/// damage, not a pair to make room for.
const LONGEST: usize = 256 << 20;

/// What a backup holds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Summary {
    pub pairs: u64,
    /// Namespaces with at least one pair.
    pub namespaces: u64,
    /// The checksum, in hex.
    pub sha256: String,
}

/// Writes a backup to `out`, one pair at a time.
pub struct Writer<W: Write> {
    out: W,
    hash: Sha256,
    pairs: u64,
    namespaces: u64,
    last_namespace: Option<Namespace>,
}

impl<W: Write> Writer<W> {
    pub fn new(mut out: W) -> io::Result<Writer<W>> {
        out.write_all(MAGIC)?;
        let mut hash = Sha256::new();
        hash.update(MAGIC);
        Ok(Writer { out, hash, pairs: 0, namespaces: 0, last_namespace: None })
    }

    /// Appends one pair; a namespace's pairs come together.
    pub fn pair(&mut self, ns: &Namespace, (key, value): &KeyValue) -> io::Result<()> {
        let name = ns.as_str().as_bytes();
        let (name_len, key_len) = ((name.len() as u16).to_be_bytes(), (key.len() as u32).to_be_bytes());
        let value_len = (value.len() as u32).to_be_bytes();
        for part in [&[PAIR][..], &name_len, name, &key_len, key, &value_len, value] {
            self.out.write_all(part)?;
            self.hash.update(part);
        }
        self.pairs += 1;
        if self.last_namespace.as_ref() != Some(ns) {
            self.namespaces += 1;
            self.last_namespace = Some(ns.clone());
        }
        Ok(())
    }

    /// Where the pairs go (a buffer a caller empties as it goes).
    pub fn out(&mut self) -> &mut W {
        &mut self.out
    }

    /// Writes the end; answers what the backup holds, and the output.
    pub fn finish(mut self) -> io::Result<(Summary, W)> {
        let digest = self.hash.finalize();
        self.out.write_all(&[END])?;
        self.out.write_all(&self.pairs.to_be_bytes())?;
        self.out.write_all(&digest)?;
        let summary = Summary { pairs: self.pairs, namespaces: self.namespaces, sha256: hex(&digest) };
        Ok((summary, self.out))
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Why a backup cannot be read back.
#[derive(Debug)]
pub enum Damaged {
    Io(io::Error),
    /// Not a backup, cut short, or changed since it was written.
    Invalid(String),
}

impl std::fmt::Display for Damaged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Damaged::Io(e) => write!(f, "cannot read the backup: {e}"),
            Damaged::Invalid(why) => write!(f, "the backup is damaged: {why}"),
        }
    }
}

impl std::error::Error for Damaged {}

impl From<io::Error> for Damaged {
    fn from(e: io::Error) -> Damaged {
        match e.kind() {
            io::ErrorKind::UnexpectedEof => Damaged::Invalid("it ends before its end record (cut short?)".into()),
            io::ErrorKind::InvalidData => Damaged::Invalid(e.to_string()),
            _ => Damaged::Io(e),
        }
    }
}

/// Reads a backup from `input`, calling `each` with every pair in order,
/// and checks its end: the count and the checksum. `each` sees pairs
/// before the check, so a caller that must not act on a damaged backup
/// reads it twice (as `crm-host store restore` does: verify, then write).
pub fn read<E: From<Damaged>>(
    input: impl Read,
    mut each: impl FnMut(Namespace, KeyValue) -> Result<(), E>,
) -> Result<Summary, E> {
    let mut input = Hashing { inner: io::BufReader::with_capacity(1 << 20, input), hash: Sha256::new() };
    let mut magic = vec![0; MAGIC.len()];
    input.read_exact(&mut magic).map_err(Damaged::from)?;
    if magic != MAGIC {
        return Err(Damaged::Invalid("it does not start as a backup of this host does".into()).into());
    }
    let (mut pairs, mut namespaces, mut last) = (0u64, 0u64, None::<Namespace>);
    loop {
        match input.byte().map_err(Damaged::from)? {
            PAIR => {}
            END => break,
            other => {
                return Err(Damaged::Invalid(format!("a record of unknown kind {other} after {pairs} pairs")).into());
            }
        }
        let name_len = u16::from_be_bytes(input.array().map_err(Damaged::from)?) as usize;
        let name = input.bytes(name_len).map_err(Damaged::from)?;
        let ns = std::str::from_utf8(&name).ok().and_then(Namespace::from_name).ok_or_else(|| {
            Damaged::Invalid(format!("pair {} names no namespace ({:?})", pairs + 1, String::from_utf8_lossy(&name)))
        })?;
        let key_len = u32::from_be_bytes(input.array().map_err(Damaged::from)?) as usize;
        let key = input.bytes(key_len).map_err(Damaged::from)?;
        let value_len = u32::from_be_bytes(input.array().map_err(Damaged::from)?) as usize;
        let value = input.bytes(value_len).map_err(Damaged::from)?;
        pairs += 1;
        if last.as_ref() != Some(&ns) {
            namespaces += 1;
            last = Some(ns.clone());
        }
        each(ns, (key, value))?;
    }
    let digest = std::mem::take(&mut input.hash).finalize();
    let mut end = [0u8; 8 + 32];
    // The end's own bytes are not in the checksum: read past the hasher.
    input.inner.read_exact(&mut end).map_err(Damaged::from)?;
    let counted = u64::from_be_bytes(end[..8].try_into().expect("8 bytes"));
    if counted != pairs {
        return Err(Damaged::Invalid(format!("it holds {pairs} pairs but its end says {counted}")).into());
    }
    if end[8..] != digest[..] {
        return Err(Damaged::Invalid("its checksum does not match its pairs (changed since written?)".into()).into());
    }
    if input.inner.read(&mut [0u8; 1]).map_err(Damaged::from)? != 0 {
        return Err(Damaged::Invalid("bytes follow its end record".into()).into());
    }
    Ok(Summary { pairs, namespaces, sha256: hex(&digest) })
}

/// A reader that hashes what it reads (the magic line and the pairs).
struct Hashing<R: Read> {
    inner: R,
    hash: Sha256,
}

impl<R: Read> Hashing<R> {
    fn read_exact(&mut self, buf: &mut [u8]) -> io::Result<()> {
        self.inner.read_exact(buf)?;
        self.hash.update(&*buf);
        Ok(())
    }

    fn byte(&mut self) -> io::Result<u8> {
        let mut one = [0u8; 1];
        self.inner.read_exact(&mut one)?;
        // The end marker is outside the checksum, as the writer has it.
        if one[0] != END {
            self.hash.update(one);
        }
        Ok(one[0])
    }

    fn array<const N: usize>(&mut self) -> io::Result<[u8; N]> {
        let mut bytes = [0u8; N];
        self.read_exact(&mut bytes)?;
        Ok(bytes)
    }

    fn bytes(&mut self, len: usize) -> io::Result<Vec<u8>> {
        if len > LONGEST {
            return Err(io::Error::new(io::ErrorKind::InvalidData, format!("a length of {len} bytes")));
        }
        let mut bytes = vec![0; len];
        self.read_exact(&mut bytes)?;
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        let mut writer = Writer::new(Vec::new()).unwrap();
        writer.pair(&Namespace::system(), &(b"org/a".to_vec(), b"{}".to_vec())).unwrap();
        writer.pair(&Namespace::org("a"), &(b"c/1".to_vec(), b"uno".to_vec())).unwrap();
        writer.pair(&Namespace::org("a"), &(b"c/2".to_vec(), Vec::new())).unwrap();
        let (summary, bytes) = writer.finish().unwrap();
        assert_eq!((summary.pairs, summary.namespaces), (3, 2));
        bytes
    }

    fn read_all(bytes: &[u8]) -> Result<(Summary, Vec<(Namespace, KeyValue)>), Damaged> {
        let mut seen = Vec::new();
        let summary = read::<Damaged>(bytes, |ns, pair| {
            seen.push((ns, pair));
            Ok(())
        })?;
        Ok((summary, seen))
    }

    #[test]
    fn a_backup_reads_back_pair_for_pair() {
        let (summary, pairs) = read_all(&sample()).unwrap();
        assert_eq!((summary.pairs, summary.namespaces, summary.sha256.len()), (3, 2, 64));
        assert_eq!(pairs[1], (Namespace::org("a"), (b"c/1".to_vec(), b"uno".to_vec())));
        assert_eq!(pairs[2].1.1, Vec::<u8>::new());
    }

    #[test]
    fn damage_is_found_and_named() {
        let bytes = sample();
        let why = |bytes: &[u8]| read_all(bytes).unwrap_err().to_string();
        let mut flipped = bytes.clone();
        let at = flipped.windows(3).position(|w| w == b"uno").unwrap();
        flipped[at] = b'U';
        assert!(why(&flipped).contains("checksum does not match"), "{}", why(&flipped));
        assert!(why(&bytes[..bytes.len() - 5]).contains("cut short"));
        assert!(why(&bytes[..40]).contains("cut short"));
        assert!(why(b"PK\x03\x04 a zip file").contains("does not start as a backup"));
        let mut longer = bytes.clone();
        longer.push(7);
        assert!(why(&longer).contains("bytes follow its end"));
    }
}
