//! The schemes of docs/encodings.md §1 and their validated description.

use super::EncodingError;
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// One of the seven in-memory checkpoint schemes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SchemeKind {
    /// `n` extra processors, processor i's copy on mirror i.
    Mirror,
    /// Processor i keeps a copy of processor i-1's checkpoint (mod n).
    Ring,
    /// Processors 2j and 2j+1 hold each other's copy.
    Pair,
    /// One extra processor holds the plain sum of all checkpoints.
    Checksum,
    /// `g` groups with one plain checksum processor each.
    #[serde(rename = "checksum-1d")]
    Checksum1d,
    /// `m` extra processors hold weighted sums `C_i = sum_j a_ij P_j`.
    Weighted,
    /// `m` weighted checksums inside each of `g` groups.
    #[serde(rename = "weighted-1d")]
    Weighted1d,
}

impl SchemeKind {
    /// Every scheme, in the order of docs/encodings.md.
    pub const ALL: [SchemeKind; 7] = [
        SchemeKind::Mirror,
        SchemeKind::Ring,
        SchemeKind::Pair,
        SchemeKind::Checksum,
        SchemeKind::Checksum1d,
        SchemeKind::Weighted,
        SchemeKind::Weighted1d,
    ];

    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            SchemeKind::Mirror => "mirror",
            SchemeKind::Ring => "ring",
            SchemeKind::Pair => "pair",
            SchemeKind::Checksum => "checksum",
            SchemeKind::Checksum1d => "checksum-1d",
            SchemeKind::Weighted => "weighted",
            SchemeKind::Weighted1d => "weighted-1d",
        }
    }

    /// Copy-based schemes: recovery moves bytes, no arithmetic.
    pub fn is_neighbour(self) -> bool {
        matches!(
            self,
            SchemeKind::Mirror | SchemeKind::Ring | SchemeKind::Pair
        )
    }

    /// Schemes whose group count is a parameter.
    pub fn is_grouped(self) -> bool {
        matches!(self, SchemeKind::Checksum1d | SchemeKind::Weighted1d)
    }

    /// Schemes whose checksum count is a parameter.
    pub fn is_weighted(self) -> bool {
        matches!(self, SchemeKind::Weighted | SchemeKind::Weighted1d)
    }
}

impl fmt::Display for SchemeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The accepted spellings, for error messages.
pub const SCHEME_NAMES: &str = "mirror, ring, pair, checksum, checksum-1d, weighted or weighted-1d";

impl FromStr for SchemeKind {
    type Err = EncodingError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SchemeKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| EncodingError::Invalid {
                arg: "--scheme",
                value: s.to_string(),
                accepted: SCHEME_NAMES.to_string(),
            })
    }
}

/// The largest computation-processor count accepted (layouts stay countable in `usize`).
pub const MAX_PROCS: usize = 1 << 32;

/// A scheme with its sizes, valid by construction.
///
/// `groups` is 1 for the ungrouped schemes; `checksums` is the number of checksum rows per
/// group (1 for the plain checksums, 0 for the neighbour schemes).
///
/// ```
/// use ckpt::encoding::{SchemeKind, SchemeSpec};
/// let s = SchemeSpec::new(SchemeKind::Weighted1d, 64, Some(8), Some(4)).unwrap();
/// assert_eq!(s.total_procs(), 64 + 8 * 4);
/// assert!(SchemeSpec::new(SchemeKind::Pair, 7, None, None).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(try_from = "SchemeSpecFields", into = "SchemeSpecFields")]
pub struct SchemeSpec {
    /// Which scheme.
    pub kind: SchemeKind,
    /// Computation processors `n`.
    pub procs: usize,
    /// Groups `g` (1 unless grouped).
    pub groups: usize,
    /// Checksum rows per group `m` (0 for neighbour schemes, 1 for plain checksums).
    pub checksums: usize,
}

/// The serialized form of [`SchemeSpec`] (the same four fields, so JSON written before reads
/// the same), read back through [`SchemeSpec::new`]: a group count of 0 or one that does not
/// divide the processors divided by zero or mislaid processors when taken as it came.
#[derive(Serialize, serde::Deserialize)]
struct SchemeSpecFields {
    kind: SchemeKind,
    procs: usize,
    groups: usize,
    checksums: usize,
}

impl TryFrom<SchemeSpecFields> for SchemeSpec {
    type Error = EncodingError;

    fn try_from(f: SchemeSpecFields) -> Result<SchemeSpec, EncodingError> {
        // `new` takes the sizes a command line gives: none for what the scheme fixes (1 group,
        // 0 or 1 checksum), so only a different value is passed on, to be refused.
        let groups = (f.kind.is_grouped() || f.groups != 1).then_some(f.groups);
        let fixed = usize::from(!f.kind.is_neighbour());
        let checksums = (f.kind.is_weighted() || f.checksums != fixed).then_some(f.checksums);
        SchemeSpec::new(f.kind, f.procs, groups, checksums)
    }
}

impl From<SchemeSpec> for SchemeSpecFields {
    fn from(s: SchemeSpec) -> SchemeSpecFields {
        SchemeSpecFields {
            kind: s.kind,
            procs: s.procs,
            groups: s.groups,
            checksums: s.checksums,
        }
    }
}

fn invalid(arg: &'static str, value: impl ToString, accepted: impl Into<String>) -> EncodingError {
    EncodingError::Invalid {
        arg,
        value: value.to_string(),
        accepted: accepted.into(),
    }
}

/// A count the scheme needs from flag `arg`: refused with `missing` when not given, with
/// `accepted` when `admits` refuses it.
fn required_count(
    arg: &'static str,
    value: Option<usize>,
    missing: String,
    admits: impl Fn(usize) -> bool,
    accepted: String,
) -> Result<usize, EncodingError> {
    let v = value.ok_or(EncodingError::Missing {
        arg,
        needed: missing,
    })?;
    if admits(v) {
        Ok(v)
    } else {
        Err(invalid(arg, v, accepted))
    }
}

impl SchemeSpec {
    /// Validates a scheme description; errors name the flag (`--procs`, `--groups`,
    /// `--checksums`) to change.
    pub fn new(
        kind: SchemeKind,
        procs: usize,
        groups: Option<usize>,
        checksums: Option<usize>,
    ) -> Result<SchemeSpec, EncodingError> {
        let n = procs;
        if n > MAX_PROCS {
            return Err(invalid(
                "--procs",
                n,
                format!("at most {MAX_PROCS} processors"),
            ));
        }
        match kind {
            SchemeKind::Ring if n < 2 => {
                return Err(invalid(
                    "--procs",
                    n,
                    "at least 2 processors for scheme ring",
                ));
            }
            SchemeKind::Pair if n < 2 || !n.is_multiple_of(2) => {
                return Err(invalid(
                    "--procs",
                    n,
                    "an even number of processors for scheme pair",
                ));
            }
            _ if n < 1 => return Err(invalid("--procs", n, "at least 1 processor")),
            _ => {}
        }
        let g = if kind.is_grouped() {
            required_count(
                "--groups",
                groups,
                format!("a group count dividing --procs for scheme {kind}"),
                |g| g != 0 && n.is_multiple_of(g),
                format!("a group count that divides --procs ({n})"),
            )?
        } else {
            if let Some(g) = groups {
                return Err(invalid(
                    "--groups",
                    g,
                    format!(
                        "no --groups for scheme {kind} (only checksum-1d and weighted-1d take groups)"
                    ),
                ));
            }
            1
        };
        let group_size = n / g;
        let m = if kind.is_weighted() {
            required_count(
                "--checksums",
                checksums,
                format!("a checksum count for scheme {kind}"),
                |m| m != 0 && m <= group_size,
                format!("between 1 and the processors per group ({group_size})"),
            )?
        } else {
            let fixed = if kind.is_neighbour() { 0 } else { 1 };
            match checksums {
                None => fixed,
                Some(c) if c == fixed && fixed == 1 => 1,
                Some(c) => {
                    let accepted = if fixed == 1 {
                        format!(
                            "1 for scheme {kind}, which keeps one checksum per group (more take weighted or weighted-1d)"
                        )
                    } else {
                        format!(
                            "no --checksums for scheme {kind} (only weighted and weighted-1d take it)"
                        )
                    };
                    return Err(invalid("--checksums", c, accepted));
                }
            }
        };
        Ok(SchemeSpec {
            kind,
            procs: n,
            groups: g,
            checksums: m,
        })
    }

    /// Computation processors per group.
    pub fn group_size(&self) -> usize {
        // The fields are public: a spec built by hand with 0 groups must not divide by zero.
        self.procs / self.groups.max(1)
    }

    /// Extra processors the scheme adds.
    pub fn extra_procs(&self) -> usize {
        match self.kind {
            SchemeKind::Mirror => self.procs,
            SchemeKind::Ring | SchemeKind::Pair => 0,
            _ => self.groups * self.checksums,
        }
    }

    /// Computation plus extra processors: the population failures are drawn from.
    pub fn total_procs(&self) -> usize {
        self.procs + self.extra_procs()
    }

    /// The group of a processor (computation or checksum) for the checksum schemes.
    pub fn group_of(&self, proc: usize) -> usize {
        if proc < self.procs {
            proc / self.group_size()
        } else {
            (proc - self.procs) / self.checksums.max(1)
        }
    }

    /// Index of checksum row `row` of group `group` (checksum schemes only).
    pub fn checksum_proc(&self, group: usize, row: usize) -> usize {
        self.procs + group * self.checksums + row
    }

    /// Whether the in-memory checkpoint survives the failure of exactly the processors in
    /// `failed` (indices in `0..total_procs`, duplicates ignored). This is the structural rule
    /// the closed forms of section 2 count, and the rule the codec obeys.
    pub fn survives(&self, failed: &[usize]) -> bool {
        let total = self.total_procs();
        let mut down = vec![false; total];
        for &f in failed {
            if f >= total {
                return false;
            }
            down[f] = true;
        }
        self.survives_mask(&down)
    }

    /// [`SchemeSpec::survives`] on a mask of length `total_procs()`; a mask of another
    /// length describes no failure of this layout and is answered `false`.
    pub fn survives_mask(&self, down: &[bool]) -> bool {
        if down.len() != self.total_procs() {
            return false;
        }
        let n = self.procs;
        match self.kind {
            SchemeKind::Mirror => (0..n).all(|i| !(down[i] && down[n + i])),
            SchemeKind::Ring => (0..n).all(|i| !(down[i] && down[(i + 1) % n])),
            SchemeKind::Pair => (0..n / 2).all(|j| !(down[2 * j] && down[2 * j + 1])),
            _ => {
                let mut per_group = vec![0usize; self.groups];
                for (p, _) in down.iter().enumerate().filter(|(_, d)| **d) {
                    per_group[self.group_of(p)] += 1;
                }
                per_group.iter().all(|&c| c <= self.checksums)
            }
        }
    }
}

impl SchemeSpec {
    /// [`SchemeSpec::survives`] on a bit set (bit q = processor q failed), for layouts of at
    /// most 64 processors: what exhaustive enumeration runs on, millions of times.
    ///
    /// Returns `None` when the layout has more than 64 processors.
    pub fn survives_bits(&self, failed: u64) -> Option<bool> {
        let total = self.total_procs();
        if total > 64 {
            return None;
        }
        let n = self.procs;
        let low = |bits: usize| {
            if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            }
        };
        let comp = failed & low(n);
        Some(match self.kind {
            SchemeKind::Mirror => comp & (failed >> n) == 0,
            SchemeKind::Ring => {
                // Processor i and i+1 (mod n) both down.
                let next = ((comp >> 1) | (comp << (n - 1))) & low(n);
                comp & next == 0
            }
            SchemeKind::Pair => {
                let evens = (0..n / 2).fold(0u64, |m, j| m | 1 << (2 * j));
                comp & (comp >> 1) & evens == 0
            }
            _ => {
                let size = self.group_size();
                let m = self.checksums;
                (0..self.groups).all(|g| {
                    let members = (comp >> (g * size)) & low(size);
                    let sums = (failed >> (n + g * m)) & low(m);
                    (members.count_ones() + sums.count_ones()) as usize <= m
                })
            }
        })
    }
}

impl fmt::Display for SchemeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} on {} processors", self.kind, self.procs)?;
        if self.kind.is_grouped() {
            write!(f, " in {} groups", self.groups)?;
        }
        if self.kind.is_weighted() {
            write!(f, " with {} checksums", self.checksums)?;
            if self.kind.is_grouped() {
                f.write_str(" per group")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for k in SchemeKind::ALL {
            assert_eq!(k.name().parse::<SchemeKind>().unwrap(), k);
            assert_eq!(
                serde_json::to_string(&k).unwrap(),
                format!("\"{}\"", k.name())
            );
        }
        assert!("raid5".parse::<SchemeKind>().is_err());
    }

    /// Before: deserializing took the fields as they came, so `groups: 0` made group_size,
    /// Codec::new and checkpoint_cost divide by zero. Now it goes through SchemeSpec::new,
    /// and the serialized form is unchanged.
    #[test]
    fn deserializing_validates_and_keeps_the_form() {
        let bad = r#"{"kind":"checksum-1d","procs":4,"groups":0,"checksums":1}"#;
        assert!(serde_json::from_str::<SchemeSpec>(bad).is_err());
        for text in [
            r#"{"kind":"pair","procs":7,"groups":1,"checksums":0}"#,
            r#"{"kind":"mirror","procs":4,"groups":2,"checksums":0}"#,
            r#"{"kind":"ring","procs":4,"groups":1,"checksums":3}"#,
            r#"{"kind":"checksum","procs":4,"groups":1,"checksums":2}"#,
            r#"{"kind":"weighted","procs":4,"groups":1,"checksums":5}"#,
        ] {
            assert!(serde_json::from_str::<SchemeSpec>(text).is_err(), "{text}");
        }
        let good = r#"{"kind":"weighted-1d","procs":12,"groups":3,"checksums":2}"#;
        let s: SchemeSpec = serde_json::from_str(good).unwrap();
        assert_eq!(
            s,
            SchemeSpec::new(SchemeKind::Weighted1d, 12, Some(3), Some(2)).unwrap()
        );
        assert_eq!(serde_json::to_string(&s).unwrap(), good);
        for kind in SchemeKind::ALL {
            let spec = some_layout(kind, 8);
            let text = serde_json::to_string(&spec).unwrap();
            assert_eq!(serde_json::from_str::<SchemeSpec>(&text).unwrap(), spec);
        }
    }

    /// A valid layout of `kind` on `procs` processors (even, at least 4): two groups, one
    /// checksum per group for weighted-1d, two for weighted.
    fn some_layout(kind: SchemeKind, procs: usize) -> SchemeSpec {
        let (g, m) = match kind {
            SchemeKind::Checksum1d => (Some(2), None),
            SchemeKind::Weighted => (None, Some(2)),
            SchemeKind::Weighted1d => (Some(2), Some(1)),
            _ => (None, None),
        };
        SchemeSpec::new(kind, procs, g, m).unwrap()
    }

    /// Before: a mask shorter or longer than the layout panicked (index out of bounds, or
    /// a group index past the groups).
    #[test]
    fn masks_of_another_length_do_not_panic() {
        for kind in SchemeKind::ALL {
            let spec = some_layout(kind, 4);
            assert!(!spec.survives_mask(&[]), "{kind}");
            assert!(!spec.survives_mask(&[false; 64]), "{kind}");
            assert!(
                spec.survives_mask(&vec![false; spec.total_procs()]),
                "{kind}"
            );
        }
    }

    #[test]
    fn validation_names_the_flag() {
        use SchemeKind::*;
        for (kind, procs, groups, checksums, flag) in [
            (Pair, 7, None, None, "--procs"),
            (Ring, 1, None, None, "--procs"),
            (Checksum1d, 10, Some(3), None, "--groups"),
            (Checksum1d, 10, None, None, "--groups"),
            (Mirror, 10, Some(2), None, "--groups"),
            (Weighted, 10, None, None, "--checksums"),
            (Weighted, 10, None, Some(0), "--checksums"),
            (Weighted1d, 12, Some(4), Some(4), "--checksums"),
            (Ring, 8, None, Some(2), "--checksums"),
        ] {
            match SchemeSpec::new(kind, procs, groups, checksums) {
                Err(EncodingError::Invalid { arg, .. } | EncodingError::Missing { arg, .. }) => {
                    assert_eq!(arg, flag, "{kind:?}")
                }
                other => panic!("{kind:?}: expected an error, got {other:?}"),
            }
        }
        assert!(SchemeSpec::new(SchemeKind::Checksum, 8, None, Some(1)).is_ok());
    }

    #[test]
    fn layout() {
        let s = SchemeSpec::new(SchemeKind::Weighted1d, 12, Some(3), Some(2)).unwrap();
        assert_eq!(s.total_procs(), 18);
        assert_eq!(s.group_of(5), 1);
        assert_eq!(s.checksum_proc(2, 1), 17);
        assert_eq!(s.group_of(17), 2);
        assert!(s.survives(&[0, 1, 4, 14]));
        assert!(!s.survives(&[0, 1, 12]));
        // The bit-set rule is the same rule.
        let mut x = 0x9e3779b97f4a7c15u64;
        for kind in SchemeKind::ALL {
            let (g, m) = match kind {
                SchemeKind::Checksum1d => (Some(3), None),
                SchemeKind::Weighted => (None, Some(3)),
                SchemeKind::Weighted1d => (Some(2), Some(2)),
                _ => (None, None),
            };
            let spec = SchemeSpec::new(kind, 6, g, m).unwrap();
            for _ in 0..500 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let bits = x & ((1 << spec.total_procs()) - 1);
                let set: Vec<usize> = (0..spec.total_procs())
                    .filter(|q| bits >> q & 1 == 1)
                    .collect();
                assert_eq!(
                    spec.survives_bits(bits),
                    Some(spec.survives(&set)),
                    "{kind} {set:?}"
                );
            }
        }
        let r = SchemeSpec::new(SchemeKind::Ring, 6, None, None).unwrap();
        assert!(r.survives(&[0, 2, 4]));
        assert!(!r.survives(&[5, 0]));
    }
}
