//! Jepsen's bank checker (`jepsen.tests.bank/checker`, as elle-cli runs it):
//! every `:ok` `:read` must name only known accounts, hold no `nil`
//! balance, sum to the total and, unless negative balances are allowed,
//! hold none below zero. The first rule a read breaks is its one error.
//! Without `:accounts` and `:total-amount` the first read's accounts and
//! sum are taken, as elle-cli does.

use super::{valid_if, JepsenOptions};
use crate::history::{Balance, CheckerF, CheckerValue, History, OpId, Status, Val};
use crate::validity::Validity;

/// What is wrong with one read, in the order the checker tries the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BankError {
    /// `:unexpected-key`: accounts not among the known ones.
    UnexpectedKey { unexpected: Vec<Val> },
    /// `:nil-balance`: accounts whose balance is `nil`.
    NilBalance { nils: Vec<Val> },
    /// `:wrong-total`: the balances' sum (wide: it may pass the 64-bit limits).
    WrongTotal { total: i128 },
    /// `:negative-value`: the negative balances.
    NegativeValue { negative: Vec<i64> },
}

impl BankError {
    pub fn name(&self) -> &'static str {
        match self {
            BankError::UnexpectedKey { .. } => "unexpected-key",
            BankError::NilBalance { .. } => "nil-balance",
            BankError::WrongTotal { .. } => "wrong-total",
            BankError::NegativeValue { .. } => "negative-value",
        }
    }

    /// Jepsen's `err-badness`: bigger is more egregious.
    fn badness(&self, total: i128) -> f64 {
        match self {
            BankError::UnexpectedKey { unexpected } => unexpected.len() as f64,
            BankError::NilBalance { nils } => nils.len() as f64,
            BankError::WrongTotal { total: t } if total != 0 => {
                ((*t as f64 - total as f64) / total as f64).abs()
            }
            BankError::WrongTotal { .. } => 0.0,
            BankError::NegativeValue { negative } => {
                -negative.iter().map(|&n| n as f64).sum::<f64>()
            }
        }
    }
}

/// The errors of one type, as the result map's `:errors` entry shows them.
#[derive(Clone, Debug)]
pub struct ErrorGroup {
    /// `(read completion, error)`, in history order.
    pub errors: Vec<(OpId, BankError)>,
    /// Positions in `errors` of the worst, and for wrong totals of the
    /// lowest and highest.
    pub worst: usize,
    pub lowest_highest: Option<(usize, usize)>,
}

#[derive(Debug)]
pub struct BankResult {
    pub read_count: usize,
    /// The total reads were held to: given, or the first read's sum.
    pub total: i128,
    /// By type, in the order each type was first found.
    pub groups: Vec<ErrorGroup>,
}

impl BankResult {
    pub fn validity(&self) -> Validity {
        valid_if(self.groups.is_empty())
    }

    pub fn error_count(&self) -> usize {
        self.groups.iter().map(|g| g.errors.len()).sum()
    }

    /// The error of the earliest read, among the first of each type.
    pub fn first_error(&self) -> Option<&(OpId, BankError)> {
        self.groups
            .iter()
            .filter_map(|g| g.errors.first())
            .min_by_key(|e| e.0)
    }

    pub fn anomaly_types(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> =
            self.groups.iter().map(|g| g.errors[0].1.name()).collect();
        names.sort_unstable();
        names
    }
}

/// A read's (account, balance) pairs.
fn balances(h: &History, v: CheckerValue) -> &[Balance] {
    match v {
        CheckerValue::Balances { start, len } => {
            &h.balances[start as usize..(start + len) as usize]
        }
        _ => &[],
    }
}

pub fn check(h: &History, options: &JepsenOptions) -> BankResult {
    let reads: Vec<(OpId, &[Balance])> = h
        .checker_ops
        .iter()
        .filter(|o| o.f == CheckerF::Read && o.status == Status::Committed)
        .filter_map(|o| Some((o.completion?, balances(h, o.completed))))
        .collect();
    let first = reads.first().map_or(&[][..], |r| r.1);
    let accounts: Vec<Val> = match &options.accounts {
        // Accounts are compared by canonical EDN text, as values are.
        Some(given) => {
            let texts: std::collections::HashSet<&str> = given.iter().map(String::as_str).collect();
            let mut known: Vec<Val> = Vec::new();
            let mut seen = std::collections::HashSet::new();
            for &(a, _) in reads.iter().flat_map(|r| r.1) {
                crate::limits::tick();
                if !seen.contains(&a) && texts.contains(h.values.display(a).as_str()) {
                    seen.insert(a);
                    known.push(a);
                }
            }
            known
        }
        None => first.iter().map(|&(a, _)| a).collect(),
    };
    // Summed wide: balances near the integer limits must not overflow.
    let total = options.total_amount.map_or_else(
        || first.iter().filter_map(|b| b.1).map(i128::from).sum(),
        i128::from,
    );
    let mut groups: Vec<ErrorGroup> = Vec::new();
    for &(op, read) in &reads {
        let Some(error) = check_read(read, &accounts, total, options.negative_balances) else {
            continue;
        };
        match groups
            .iter_mut()
            .find(|g| g.errors[0].1.name() == error.name())
        {
            Some(g) => g.errors.push((op, error)),
            None => groups.push(ErrorGroup {
                errors: vec![(op, error)],
                worst: 0,
                lowest_highest: None,
            }),
        }
    }
    for g in &mut groups {
        summarise(g, total);
    }
    BankResult {
        read_count: reads.len(),
        total,
        groups,
    }
}

/// The first rule a read breaks, as Jepsen's `check-op` tries them.
pub(crate) fn check_read(
    read: &[Balance],
    accounts: &[Val],
    total: i128,
    negative_allowed: bool,
) -> Option<BankError> {
    let unexpected: Vec<Val> = read
        .iter()
        .map(|b| b.0)
        .filter(|a| !accounts.contains(a))
        .collect();
    if !unexpected.is_empty() {
        return Some(BankError::UnexpectedKey { unexpected });
    }
    let nils: Vec<Val> = read.iter().filter(|b| b.1.is_none()).map(|b| b.0).collect();
    if !nils.is_empty() {
        return Some(BankError::NilBalance { nils });
    }
    let sum: i128 = read.iter().filter_map(|b| b.1).map(i128::from).sum();
    if sum != total {
        return Some(BankError::WrongTotal { total: sum });
    }
    let negative: Vec<i64> = read.iter().filter_map(|b| b.1).filter(|&b| b < 0).collect();
    if !negative_allowed && !negative.is_empty() {
        return Some(BankError::NegativeValue { negative });
    }
    None
}

/// The worst error (the first of the worst), and for wrong totals the
/// first lowest and first highest.
fn summarise(g: &mut ErrorGroup, total: i128) {
    let mut worst = 0;
    for (i, e) in g.errors.iter().enumerate() {
        if e.1.badness(total) > g.errors[worst].1.badness(total) {
            worst = i;
        }
    }
    g.worst = worst;
    let sum = |i: usize| match g.errors[i].1 {
        BankError::WrongTotal { total } => total,
        _ => 0,
    };
    if let BankError::WrongTotal { .. } = g.errors[0].1 {
        let (mut lo, mut hi) = (0, 0);
        for i in 0..g.errors.len() {
            if sum(i) < sum(lo) {
                lo = i;
            }
            if sum(i) > sum(hi) {
                hi = i;
            }
        }
        g.lowest_highest = Some((lo, hi));
    }
}
