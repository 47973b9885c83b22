//! Jepsen's bank checker (`checkers::bank`) over a stream: each `:ok` read
//! is checked as it completes, by the same rules (`bank::check_read`),
//! against the accounts and total given or, as offline, the first read's.
//! The first read is the first invoked, so reads that complete while an
//! earlier-invoked read is still under way are held until it completes.

use super::{finding, Pair};
use crate::checkers::bank::{check_read, BankError};
use crate::checkers::{valid_if, JepsenOptions};
use crate::history::{Balance, CheckerF, CheckerValue, Status, Val, ValueTable};
use crate::infer::util::FxSet;
use crate::validity::Validity;
use std::collections::{BTreeSet, HashSet};

/// An `:ok` read held until the first read is known: where its pair
/// began, its completion's `:index`, its balances.
type Held = (u64, i64, Vec<Balance>);

pub(super) struct BankCheck {
    /// `--accounts`, as text.
    given: Option<HashSet<String>>,
    /// The known accounts: the given ones seen so far, or the first read's.
    accounts: Vec<Val>,
    /// Accounts whose text was looked up among the given ones.
    looked_up: FxSet<Val>,
    /// The total: given, or the first read's sum (once known).
    total: Option<i128>,
    negative_allowed: bool,
    /// Whether the accounts and total are known.
    ready: bool,
    held: Vec<Held>,
    names: BTreeSet<&'static str>,
    pub found: Vec<super::Finding>,
}

impl BankCheck {
    pub fn new(options: &JepsenOptions) -> BankCheck {
        let given = options
            .accounts
            .as_ref()
            .map(|a| a.iter().cloned().collect());
        let total = options.total_amount.map(i128::from);
        BankCheck {
            ready: given.is_some() && total.is_some(),
            given,
            accounts: Vec::new(),
            looked_up: FxSet::default(),
            total,
            negative_allowed: options.negative_balances,
            held: Vec::new(),
            names: BTreeSet::new(),
            found: Vec::new(),
        }
    }

    pub fn complete(&mut self, p: &Pair<'_>) {
        if (p.f, p.status) != (CheckerF::Read, Status::Committed) {
            return;
        }
        let read = match p.completed {
            CheckerValue::Balances { start, len } => {
                let (start, len) = (start as usize, len as usize);
                p.balances.get(start..start + len).unwrap_or(&[])
            }
            _ => &[],
        };
        match self.ready {
            true => self.check(p.index, read, p.values),
            false => self.held.push((p.opening, p.index, read.to_vec())),
        }
    }

    /// The first read is the one whose pair began at `at`: the accounts
    /// and total not given are its, and the reads held are checked.
    pub fn first_read(&mut self, at: u64, values: &ValueTable) {
        if self.ready {
            return;
        }
        let mut held = std::mem::take(&mut self.held);
        held.sort_by_key(|h| h.0);
        let first = held.iter().find(|h| h.0 == at).or(held.first());
        let first = first.map_or(&[][..], |h| h.2.as_slice());
        if self.given.is_none() {
            self.accounts = first.iter().map(|b| b.0).collect();
        }
        // Summed wide: balances near the integer limits must not overflow.
        let sum = || first.iter().filter_map(|b| b.1).map(i128::from).sum();
        self.total = Some(self.total.unwrap_or_else(sum));
        self.ready = true;
        for (_, index, read) in held {
            self.check(index, &read, values);
        }
    }

    /// Checks the read completed at op `index`.
    fn check(&mut self, index: i64, read: &[Balance], values: &ValueTable) {
        self.learn_accounts(read, values);
        let total = self.total.unwrap_or(0);
        let Some(e) = check_read(read, &self.accounts, total, self.negative_allowed) else {
            return;
        };
        self.names.insert(e.name());
        let detail = detail(&e, total, values);
        self.found.push(finding(e.name(), index, index, detail));
    }

    /// With `--accounts`: the read's accounts among them are known (by
    /// their text, as offline).
    fn learn_accounts(&mut self, read: &[Balance], values: &ValueTable) {
        let Some(given) = &self.given else {
            return;
        };
        for &(a, _) in read {
            if self.looked_up.insert(a) && given.contains(values.display(a).as_str()) {
                self.accounts.push(a);
            }
        }
    }

    pub fn finish(&mut self) -> (Validity, Vec<&'static str>) {
        let names: Vec<&'static str> = self.names.iter().copied().collect();
        (valid_if(names.is_empty()), names)
    }
}

/// What is wrong with a read, in words.
fn detail(e: &BankError, total: i128, values: &ValueTable) -> String {
    let list = |vs: &[Val]| {
        let texts: Vec<String> = vs.iter().map(|&v| values.display(v)).collect();
        texts.join(", ")
    };
    match e {
        BankError::UnexpectedKey { unexpected } => {
            format!("read accounts not known: {}", list(unexpected))
        }
        BankError::NilBalance { nils } => format!("read nil balances of {}", list(nils)),
        BankError::WrongTotal { total: t } => format!("read a total of {t}, not {total}"),
        BankError::NegativeValue { negative } => {
            let texts: Vec<String> = negative.iter().map(i64::to_string).collect();
            format!("read negative balances: {}", texts.join(", "))
        }
    }
}
