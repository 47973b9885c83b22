//! Clauses over constraints' sides, stored flat: what inference builds for
//! reads of repeated values and what the solver's problem carries.
//!
//! Why flat: VeriStrong's HD-10k has a million clauses of two or three
//! literals. As a `Vec` each, building, cloning and dropping them was a
//! fifth of the check (malloc and free under `perf`), and dropping them
//! alone took a second after a `--timeout` had passed.

/// A clause: `(constraint, side)` literals, one of which holds.
pub type Clause = Vec<(u32, u8)>;

/// Clauses one after another: `lits[ends[i - 1]..ends[i]]` is clause `i`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clauses {
    lits: Vec<(u32, u8)>,
    ends: Vec<u32>,
}

impl Clauses {
    /// Adds a clause.
    pub fn push(&mut self, clause: &[(u32, u8)]) {
        self.lits.extend_from_slice(clause);
        // 2^32 literals would take 32 GiB: allocating them fails first.
        let end = u32::try_from(self.lits.len()).expect("fewer than 2^32 literals");
        self.ends.push(end);
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Clause `i`.
    pub fn get(&self, i: usize) -> &[(u32, u8)] {
        let start = match i {
            0 => 0,
            _ => self.ends[i - 1] as usize,
        };
        &self.lits[start..self.ends[i] as usize]
    }

    pub fn iter(&self) -> impl Iterator<Item = &[(u32, u8)]> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

impl<C: AsRef<[(u32, u8)]>> FromIterator<C> for Clauses {
    fn from_iter<I: IntoIterator<Item = C>>(iter: I) -> Clauses {
        let mut out = Clauses::default();
        for clause in iter {
            out.push(clause.as_ref());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses_come_back_as_pushed() {
        let input: Vec<Clause> = vec![vec![(0, 1)], vec![], vec![(2, 0), (3, 1), (4, 0)]];
        let clauses: Clauses = input.iter().collect();
        assert_eq!(clauses.len(), 3);
        let back: Vec<Clause> = clauses.iter().map(<[_]>::to_vec).collect();
        assert_eq!(back, input);
        assert!(Clauses::default().is_empty());
    }
}
