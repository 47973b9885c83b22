//! Rendering miette diagnostics to text.

use super::excerpt::Excerpted;
use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme};

/// Renders a diagnostic as miette's graphical report. `color` adds ANSI
/// colours and Unicode art; without it the output is plain and stable (the
/// form snapshot tests pin down). miette sees the diagnostic through
/// [`Excerpted`]: control characters escaped, long lines cut around labels.
pub fn render(diag: &dyn Diagnostic, color: bool) -> String {
    let diag = Excerpted::new(diag);
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_links(false);
    let mut out = String::new();
    if handler.render_report(&mut out, &diag).is_err() {
        out = format!("{diag}\n");
    }
    out
}
