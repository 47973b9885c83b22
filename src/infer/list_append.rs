//! list-append inference (SPEC §2.2).

use super::Inference;
use crate::history::History;

pub fn infer(_history: &History) -> Inference {
    Inference::default()
}
