//! Jepsen's unique-ids checker (`jepsen.checker/unique-ids`): every `:ok`
//! `:generate` must return an id no other returned.

use super::{element, valid_if, value_order};
use crate::history::{CheckerF, History, Status, Val};
use crate::validity::Validity;
use std::collections::HashMap;

#[derive(Debug)]
pub struct UniqueIdsResult {
    pub attempted_count: usize,
    pub acknowledged_count: usize,
    /// Ids returned more than once, with how often, sorted by id.
    pub duplicated: Vec<(Val, usize)>,
    /// The lowest and highest id returned.
    pub range: Option<(Val, Val)>,
}

impl UniqueIdsResult {
    pub fn validity(&self) -> Validity {
        valid_if(self.duplicated.is_empty())
    }

    pub fn anomaly_types(&self) -> Vec<&'static str> {
        match self.duplicated.is_empty() {
            true => Vec::new(),
            false => vec!["duplicated"],
        }
    }

    /// Jepsen's `:duplicated`: the 48 most frequent (among equal counts
    /// the higher ids, as its reversed stable sort gives them), by id.
    pub fn shown_duplicates(&self, h: &History) -> Vec<(Val, usize)> {
        let mut most = self.duplicated.clone();
        most.sort_by_key(|d| d.1);
        most.reverse();
        most.truncate(48);
        most.sort_by(|a, b| value_order(h, a.0, b.0));
        most
    }
}

pub fn check(h: &History) -> UniqueIdsResult {
    let generates = || h.checker_ops.iter().filter(|o| o.f == CheckerF::Generate);
    let ids: Vec<Val> = generates()
        .filter(|o| o.status == Status::Committed)
        .filter_map(|o| element(&o.completed))
        .collect();
    let mut counts: HashMap<Val, usize> = HashMap::new();
    for &id in &ids {
        *counts.entry(id).or_default() += 1;
    }
    let mut duplicated: Vec<(Val, usize)> = counts.into_iter().filter(|c| c.1 > 1).collect();
    duplicated.sort_by(|a, b| value_order(h, a.0, b.0));
    let lowest = ids.iter().copied().min_by(|&a, &b| value_order(h, a, b));
    let highest = ids.iter().copied().max_by(|&a, &b| value_order(h, a, b));
    UniqueIdsResult {
        attempted_count: generates().filter(|o| o.invoke.is_some()).count(),
        acknowledged_count: ids.len(),
        duplicated,
        range: lowest.zip(highest),
    }
}
