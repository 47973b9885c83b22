//! Graph drawings as inline SVG: boxes with lines of text joined by
//! labelled arrows, placed by `layout-rs` (a Sugiyama layout: layers, then
//! crossings, then Brandes–Köpf placement) and written by [`Svg`], a
//! `layout-rs` backend that gives every node and edge the classes and
//! `data-` attributes the page's CSS and the browser test read. The cycle
//! plots and the lattice are drawn here.

use super::esc;
use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::format::{ClipHandle, RenderBackend};
use layout::core::geometry::Point;
use layout::core::style::{LineStyleKind, StyleAttr};
use layout::std_shapes::shapes::{Arrow, Element, LineEndKind, ShapeKind};
use layout::topo::layout::VisualGraph;
use std::fmt::Write;

/// Elle's default `:max-plot-bytes`: a plot whose description (its labels,
/// as Elle counts the bytes of the DOT it would render) is larger is not
/// laid out, and the page says so.
pub const MAX_PLOT_BYTES: usize = 65_536;

/// Font size of the drawings, in pixels; the CSS sets the same.
const FONT: usize = 12;
/// The smallest the font of a drawing scaled down to fit gets, in pixels.
const MIN_FONT: f64 = 11.0;

/// A box: its lines of text and the attributes of its SVG group (a
/// `class`, `data-` attributes), written as they are.
pub struct Node {
    pub text: String,
    pub attrs: String,
}

/// An arrow between two nodes (indices into [`Plot::nodes`]).
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub label: String,
    pub attrs: String,
}

/// A graph to draw.
#[derive(Default)]
pub struct Plot {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

impl Plot {
    /// The bytes Elle would count: the DOT statements of the nodes and edges.
    pub fn description_bytes(&self) -> usize {
        let nodes: usize = self.nodes.iter().map(|n| n.text.len() + 16).sum();
        let edges: usize = self.edges.iter().map(|e| e.label.len() + 24).sum();
        nodes + edges
    }

    /// The drawing, top to bottom or left to right; `Err` with the size
    /// when the plot is over [`MAX_PLOT_BYTES`].
    pub fn svg(&self, class: &str, top_down: bool) -> Result<String, usize> {
        let bytes = self.description_bytes();
        if bytes > MAX_PLOT_BYTES {
            return Err(bytes);
        }
        let orientation = match top_down {
            true => Orientation::TopToBottom,
            false => Orientation::LeftToRight,
        };
        let mut graph = VisualGraph::new(orientation);
        let look = StyleAttr::new(Color::fast("black"), 1, None, 4, FONT);
        let handles: Vec<_> = self
            .nodes
            .iter()
            .map(|n| {
                let shape = ShapeKind::new_box(&n.text);
                let size = text_size(&n.text);
                let e = Element::create_with_properties(
                    shape,
                    look.clone(),
                    orientation,
                    size,
                    n.attrs.clone(),
                );
                graph.add_node(e)
            })
            .collect();
        for e in &self.edges {
            let arrow = Arrow::with_properties(
                LineEndKind::None,
                LineEndKind::Arrow,
                LineStyleKind::Normal,
                &e.label,
                &look,
                e.attrs.clone(),
                &None,
                &None,
            );
            graph.add_edge(arrow, handles[e.from], handles[e.to]);
        }
        let mut svg = Svg::new();
        graph.do_it(false, false, false, &mut svg);
        Ok(svg.finish(class))
    }
}

/// The size of a box holding `text` in the monospace font: about 0.62 em
/// per character, 1.25 em per line, with padding.
fn text_size(text: &str) -> Point {
    let longest = text.lines().map(|l| l.chars().count()).max().unwrap_or(1);
    let lines = text.lines().count().max(1);
    let f = FONT as f64;
    Point::new(
        longest as f64 * f * 0.62 + 16.0,
        lines as f64 * f * 1.25 + 10.0,
    )
}

/// The `layout-rs` backend: SVG elements with the plot's own attributes,
/// the colours left to the page's CSS. The bounding box grows with what is
/// drawn.
struct Svg {
    body: String,
    max: (f64, f64),
    /// A node's group is open between its box and its text.
    open: bool,
}

impl Svg {
    fn new() -> Svg {
        Svg {
            body: String::new(),
            max: (0.0, 0.0),
            open: false,
        }
    }

    fn grow(&mut self, p: Point) {
        self.max.0 = self.max.0.max(p.x);
        self.max.1 = self.max.1.max(p.y);
    }

    /// The drawing; one the page scales down to fit (the lattice) never
    /// goes under [`MIN_FONT`] pixels a letter: past that it scrolls.
    fn finish(self, class: &str) -> String {
        let (w, h) = (self.max.0.ceil() + 8.0, self.max.1.ceil() + 8.0);
        let least = (w * MIN_FONT / FONT as f64).ceil();
        format!(
            "<svg class=\"{class}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" \
             height=\"{h}\" viewBox=\"0 0 {w} {h}\" style=\"min-width:{least}px\">\n{}</svg>",
            self.body
        )
    }
}

/// Coordinates rounded to a tenth of a pixel, so that the page is stable
/// and small.
fn n(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    format!("{r}")
}

impl RenderBackend for Svg {
    fn draw_rect(
        &mut self,
        xy: Point,
        size: Point,
        look: &StyleAttr,
        properties: Option<String>,
        _clip: Option<ClipHandle>,
    ) {
        self.grow(xy.add(size));
        let _ = write!(
            self.body,
            "<g {}><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"{}\"/>",
            properties.unwrap_or_default(),
            n(xy.x),
            n(xy.y),
            n(size.x),
            n(size.y),
            look.rounded
        );
        self.open = true;
    }

    fn draw_line(&mut self, a: Point, b: Point, _look: &StyleAttr, props: Option<String>) {
        self.grow(a);
        self.grow(b);
        let _ = write!(
            self.body,
            "<line {} x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
            props.unwrap_or_default(),
            n(a.x),
            n(a.y),
            n(b.x),
            n(b.y)
        );
    }

    fn draw_circle(&mut self, xy: Point, size: Point, _look: &StyleAttr, props: Option<String>) {
        self.grow(xy.add(size.scale(0.5)));
        let _ = write!(
            self.body,
            "<ellipse {} cx=\"{}\" cy=\"{}\" rx=\"{}\" ry=\"{}\"/>",
            props.unwrap_or_default(),
            n(xy.x),
            n(xy.y),
            n(size.x / 2.0),
            n(size.y / 2.0)
        );
    }

    /// Lines of text centred on `xy`: a node's label (closing its group) or
    /// an edge's, drawn at the edge's midpoint.
    fn draw_text(&mut self, xy: Point, text: &str, _look: &StyleAttr) {
        let lines = text.lines().count().max(1) as f64;
        let line_height = FONT as f64 * 1.25;
        let top = xy.y - (lines - 1.0) * line_height / 2.0;
        let class = if self.open { "label" } else { "edge-label" };
        // The drawing holds the text too: an edge's label may stick out past
        // the boxes.
        let half = text_size(text).scale(0.5);
        self.grow(xy.add(half));
        let _ = write!(self.body, "<text class=\"{class}\">");
        for (i, line) in text.lines().enumerate() {
            let _ = write!(
                self.body,
                "<tspan x=\"{}\" y=\"{}\">{}</tspan>",
                n(xy.x),
                n(top + i as f64 * line_height),
                esc(line)
            );
        }
        self.body.push_str("</text>");
        if self.open {
            self.body.push_str("</g>");
            self.open = false;
        }
        self.body.push('\n');
    }

    fn draw_arrow(
        &mut self,
        path: &[(Point, Point)],
        _dashed: bool,
        head: (bool, bool),
        _look: &StyleAttr,
        properties: Option<String>,
        text: &str,
    ) {
        let [first, second, rest @ ..] = path else {
            return;
        };
        let mut d = format!(
            "M {} {} C {} {}, {} {}, {} {}",
            n(first.0.x),
            n(first.0.y),
            n(first.1.x),
            n(first.1.y),
            n(second.0.x),
            n(second.0.y),
            n(second.1.x),
            n(second.1.y)
        );
        for p in rest {
            let _ = write!(d, " S {} {}, {} {}", n(p.0.x), n(p.0.y), n(p.1.x), n(p.1.y));
        }
        for p in path {
            self.grow(p.0);
            self.grow(p.1);
        }
        // An edge layout-rs reversed to break a cycle has its head at its
        // start.
        let heads = match head {
            (true, true) => " marker-start=\"url(#arrow)\" marker-end=\"url(#arrow)\"",
            (true, false) => " marker-start=\"url(#arrow)\"",
            (false, true) => " marker-end=\"url(#arrow)\"",
            (false, false) => "",
        };
        let _ = write!(
            self.body,
            "<g {}><path d=\"{d}\"{heads}/>",
            properties.unwrap_or_default()
        );
        // Labelled edges go through a label node of their own (layout-rs
        // splits them), so an arrow seldom carries text.
        if !text.is_empty() {
            let _ = write!(self.body, "<title>{}</title>", esc(text));
        }
        self.body.push_str("</g>\n");
    }

    fn create_clip(&mut self, _xy: Point, _size: Point, _rounded: usize) -> ClipHandle {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cycle(n: usize) -> Plot {
        let nodes = (0..n)
            .map(|i| Node {
                text: format!("T{}\n[:append :x {i}]", i + 1),
                attrs: format!("class=\"node\" data-name=\"T{}\"", i + 1),
            })
            .collect();
        let edges = (0..n)
            .map(|i| Edge {
                from: i,
                to: (i + 1) % n,
                label: format!("ww :x {i}"),
                attrs: "class=\"dep ww\"".to_string(),
            })
            .collect();
        Plot { nodes, edges }
    }

    #[test]
    fn every_node_and_edge_is_drawn_once() {
        for n in [2, 3, 7] {
            let svg = cycle(n).svg("cycle", true).unwrap();
            assert_eq!(svg.matches("class=\"node\"").count(), n, "{svg}");
            assert_eq!(svg.matches("class=\"dep ww\"").count(), n, "{svg}");
            for i in 0..n {
                assert!(svg.contains(&format!("ww :x {i}")), "{svg}");
            }
        }
    }

    #[test]
    fn the_drawing_is_deterministic() {
        assert_eq!(cycle(6).svg("c", true), cycle(6).svg("c", true));
    }

    #[test]
    fn plots_over_the_cap_are_not_laid_out() {
        let big = cycle(MAX_PLOT_BYTES / 20);
        assert!(big.description_bytes() > MAX_PLOT_BYTES);
        assert_eq!(big.svg("c", true), Err(big.description_bytes()));
    }
}
