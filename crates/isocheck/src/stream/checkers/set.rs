//! Jepsen's set checker (`checkers::set`) over a stream: the elements
//! attempted and acknowledged, which are the set's own state, and its
//! latest `:ok` read. What is lost or unexpected is judged against the
//! last read, so only the end of the stream makes it certain: a later
//! read replaces the one before, and a later add may attempt an element a
//! read showed.

use super::{About, Finding, Pair};
use crate::checkers::{element, named, valid_if};
use crate::history::{CheckerF, CheckerValue, Status, Val, ValueTable};
use crate::infer::util::FxSet;
use crate::validity::Validity;

/// The latest `:ok` read: its completion's `:index` and elements, or
/// `None` when it read `nil` (no read at all, as Jepsen takes it).
type Read = Option<(i64, FxSet<Val>)>;

/// How many elements a finding names (it counts them all).
const NAMED: usize = 10;

#[derive(Default)]
pub(super) struct SetCheck {
    attempts: FxSet<Val>,
    acknowledged: FxSet<Val>,
    last: Option<Read>,
    pub found: Vec<Finding>,
}

impl SetCheck {
    pub fn invoke(&mut self, f: CheckerF, invoked: CheckerValue) {
        if let (CheckerF::Add, Some(x)) = (f, element(&invoked)) {
            self.attempts.insert(x);
        }
    }

    pub fn complete(&mut self, p: &Pair<'_>) {
        if p.status != Status::Committed {
            return;
        }
        match p.f {
            CheckerF::Add => {
                let added = element(&p.completed).or(element(&p.invoked));
                self.acknowledged.extend(added);
            }
            CheckerF::Read if p.nil => self.last = Some(None),
            CheckerF::Read => {
                let elems = match p.completed {
                    CheckerValue::Elems { start, len } => {
                        let (start, len) = (start as usize, len as usize);
                        p.elems.get(start..start + len).unwrap_or(&[])
                    }
                    _ => &[],
                };
                self.last = Some(Some((p.index, elems.iter().copied().collect())));
            }
            _ => {}
        }
    }

    /// The stream ended: the last read decides.
    pub fn finish(&mut self, values: &ValueTable) -> (Validity, Vec<&'static str>) {
        let Some(Some((at, read))) = self.last.take() else {
            return (Validity::Unknown, vec!["never-read"]);
        };
        let lost: Vec<Val> = self.acknowledged.difference(&read).copied().collect();
        let unexpected: Vec<Val> = read.difference(&self.attempts).copied().collect();
        for (name, elems) in [("lost", &lost), ("unexpected", &unexpected)] {
            if !elems.is_empty() {
                self.found.push(elements(name, at, elems, values));
            }
        }
        let names = named(&[
            (!lost.is_empty(), "lost"),
            (!unexpected.is_empty(), "unexpected"),
        ]);
        (valid_if(names.is_empty()), names)
    }
}

/// A finding about `elems`, against the read completed at op `read`.
fn elements(name: &str, read: i64, elems: &[Val], values: &ValueTable) -> Finding {
    let mut texts: Vec<String> = elems.iter().map(|&v| values.display(v)).collect();
    texts.sort_unstable();
    let count = texts.len();
    texts.truncate(NAMED);
    Finding {
        name: name.to_string(),
        at: i64::MIN,
        what: About::Elements {
            read,
            count,
            first: texts,
        },
    }
}
