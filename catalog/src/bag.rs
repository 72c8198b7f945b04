//! A text's letters counted, for a cheap lower bound of an edit distance:
//! the near-name search (`resolve.rs`) skips names it cannot reach.

/// How many of each character a text holds, in 64 buckets (`a`-`z`, digits,
/// space, the rest shared): the bag distance of two texts is a lower bound
/// of their edit distance (one insertion, deletion or substitution moves it
/// by at most one; a transposition not at all), and sharing buckets only
/// lowers it further.
/// Built once for every name of the catalog ([`crate::data::Catalog::name_bags`]).
pub(crate) struct Bag {
    counts: [u8; 64],
    /// How many characters the text has: their difference is another lower bound.
    pub(crate) chars: usize,
}

impl Bag {
    pub(crate) fn of(text: &str) -> Bag {
        let mut counts = [0u8; 64];
        let mut chars = 0;
        for c in text.chars() {
            chars += 1;
            let bucket = match c {
                'a'..='z' => c as usize - 'a' as usize,
                '0'..='9' => 26 + c as usize - '0' as usize,
                ' ' => 36,
                _ => 63,
            };
            if let Some(count) = counts.get_mut(bucket) {
                *count = count.saturating_add(1);
            }
        }
        Bag { counts, chars }
    }

    /// max(what `self` has more of, what `other` has more of).
    pub(crate) fn distance(&self, other: &Bag) -> usize {
        let (mut more, mut less) = (0usize, 0usize);
        for (a, b) in self.counts.iter().zip(&other.counts) {
            more += a.saturating_sub(*b) as usize;
            less += b.saturating_sub(*a) as usize;
        }
        more.max(less)
    }
}
