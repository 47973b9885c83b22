//! rw-register inference (SPEC §2.3).

use super::{InferOptions, Inference};
use crate::history::History;

pub fn infer(_history: &History, _opts: &InferOptions) -> Inference {
    Inference::default()
}
