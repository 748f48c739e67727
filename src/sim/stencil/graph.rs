//! The task graph of docs/simulation.md §3.1: tasks T(t, n) of a 1-D stencil with a periodic
//! boundary, up-triangles where t + n is even and down-triangles where it is odd.
//!
//! A task's id is its place in the queue order (t, U before D, n): row t holds ids
//! `(t-1)*W .. t*W`, its W/2 up-triangles first in ascending n, then its W/2 down-triangles.
//! So "the head of the queue" is simply the smallest id.

/// The shape of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Up-triangle: t + n even; depends on the task below it.
    Up,
    /// Down-triangle: t + n odd; depends on its two neighbours in the same row.
    Down,
}

/// At most two task ids (a dependency or consumer list), deduplicated.
///
/// Eight bytes: an unused place holds `u32::MAX`, never a task id (a [`Grid`] has fewer than
/// `u32::MAX` tasks). Made on demand from a task's id, never kept in a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    ids: [u32; 2],
}

/// An unused place of a [`Pair`].
pub(crate) const NO_TASK: u32 = u32::MAX;
const NONE: u32 = NO_TASK;

impl Default for Pair {
    fn default() -> Self {
        Pair { ids: [NONE; 2] }
    }
}

impl Pair {
    /// Adds `id` unless it is there already (at most two ids; `id` below `u32::MAX`).
    pub fn push(&mut self, id: u32) {
        debug_assert!(id != NONE);
        let len = self.len();
        if self.ids[..len].contains(&id) {
            return;
        }
        self.ids[len] = id;
    }

    /// `[a]`.
    pub(crate) fn one(a: u32) -> Pair {
        Pair { ids: [a, NONE] }
    }

    /// `[a, b]`, or `[a]` when they are equal.
    pub(crate) fn two(a: u32, b: u32) -> Pair {
        Pair {
            ids: [a, if b == a { NONE } else { b }],
        }
    }

    fn len(&self) -> usize {
        (self.ids[0] != NONE) as usize + (self.ids[1] != NONE) as usize
    }

    /// The ids, without repeats, in order: what [`Pair::as_slice`] holds, without working out
    /// its length (the simulator's inner loops run on this).
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = u32> + use<> {
        let [a, b] = self.ids;
        PairIter { a, b }
    }

    /// The ids, without repeats.
    pub fn as_slice(&self) -> &[u32] {
        &self.ids[..self.len()]
    }
}

/// The ids of a [`Pair`]: the first place, then the second moved up. An unused first place
/// means an unused second one, so one comparison ends the walk; unrolled, it is the two tests
/// a hand-written loop would make.
struct PairIter {
    a: u32,
    b: u32,
}

impl Iterator for PairIter {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.a == NONE {
            return None;
        }
        let x = self.a;
        self.a = self.b;
        self.b = NONE;
        Some(x)
    }
}

/// The W x T grid of tasks.
///
/// ```
/// use ckpt::sim::stencil::graph::{Grid, Shape};
/// let g = Grid::new(4, 4).unwrap();
/// assert_eq!(g.shape(1, 1), Shape::Up);
/// assert_eq!(g.shape(1, 2), Shape::Down);
/// // D T(1,2) <- T(1,1), T(1,3)
/// let deps: Vec<_> = g.deps(g.id(1, 2)).as_slice().iter().map(|&d| g.coords(d)).collect();
/// assert_eq!(deps, [(1, 1), (1, 3)]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    width: u32,
    rows: u32,
}

impl Grid {
    /// A grid of `width` tasks per row (even, at least 2) and `rows` rows (at least 1).
    pub fn new(width: u32, rows: u32) -> Option<Grid> {
        let ok = width >= 2
            && width.is_multiple_of(2)
            && rows >= 1
            && (width as u64) * (rows as u64) < u32::MAX as u64;
        ok.then_some(Grid { width, rows })
    }

    /// Tasks per row (W).
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Rows (T).
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// Number of tasks, W x T.
    pub fn tasks(&self) -> u32 {
        self.width * self.rows
    }

    /// The shape of T(t, n).
    pub fn shape(&self, t: u32, n: u32) -> Shape {
        if (t + n).is_multiple_of(2) {
            Shape::Up
        } else {
            Shape::Down
        }
    }

    /// The id (queue rank) of T(t, n), t in 1..=T, n in 1..=W.
    pub fn id(&self, t: u32, n: u32) -> u32 {
        let half = self.width / 2;
        let j = (n - 1) / 2;
        let base = (t - 1) * self.width;
        match self.shape(t, n) {
            Shape::Up => base + j,
            Shape::Down => base + half + j,
        }
    }

    /// `(t, n)` of a task id.
    pub fn coords(&self, id: u32) -> (u32, u32) {
        let half = self.width / 2;
        let t = id / self.width + 1;
        let r = id % self.width;
        // Up-triangles have n of t's parity, down-triangles the other one.
        let (j, offset) = if r < half {
            (r, (t - 1) % 2)
        } else {
            (r - half, t % 2)
        };
        (t, 2 * j + 1 + offset)
    }

    fn left(&self, n: u32) -> u32 {
        if n == 1 { self.width } else { n - 1 }
    }

    fn right(&self, n: u32) -> u32 {
        if n == self.width { 1 } else { n + 1 }
    }

    /// The tasks whose outputs `id` reads: U T(t,n) <- T(t-1,n) for t > 1; D T(t,n) <-
    /// T(t,n-1), T(t,n+1) (periodic; listed once when W = 2).
    pub fn deps(&self, id: u32) -> Pair {
        let (t, n) = self.coords(id);
        let mut p = Pair::default();
        match self.shape(t, n) {
            Shape::Up => {
                if t > 1 {
                    p.push(self.id(t - 1, n));
                }
            }
            Shape::Down => {
                p.push(self.id(t, self.left(n)));
                p.push(self.id(t, self.right(n)));
            }
        }
        p
    }

    /// The tasks that read `id`'s output: the inverse of [`Grid::deps`].
    pub fn consumers(&self, id: u32) -> Pair {
        let (t, n) = self.coords(id);
        let mut p = Pair::default();
        match self.shape(t, n) {
            Shape::Up => {
                p.push(self.id(t, self.left(n)));
                p.push(self.id(t, self.right(n)));
            }
            Shape::Down => {
                if t < self.rows {
                    p.push(self.id(t + 1, n));
                }
            }
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_queue_order() {
        for (w, rows) in [(2, 3), (4, 4), (6, 5), (16, 7)] {
            let g = Grid::new(w, rows).unwrap();
            let mut keys: Vec<(u32, u8, u32, u32)> = Vec::new();
            for t in 1..=rows {
                for n in 1..=w {
                    let s = if g.shape(t, n) == Shape::Up { 0 } else { 1 };
                    keys.push((t, s, n, g.id(t, n)));
                    assert_eq!(g.coords(g.id(t, n)), (t, n));
                }
            }
            keys.sort();
            let ids: Vec<u32> = keys.iter().map(|k| k.3).collect();
            assert_eq!(ids, (0..g.tasks()).collect::<Vec<_>>());
        }
    }

    #[test]
    fn shapes_alternate_as_the_paper_draws_them() {
        let g = Grid::new(6, 4).unwrap();
        let row1: Vec<_> = (1..=6).map(|n| g.shape(1, n)).collect();
        assert_eq!(
            row1,
            [
                Shape::Up,
                Shape::Down,
                Shape::Up,
                Shape::Down,
                Shape::Up,
                Shape::Down
            ]
        );
        assert_eq!(g.shape(2, 2), Shape::Up);
        assert_eq!(g.shape(2, 1), Shape::Down);
    }

    #[test]
    fn dependencies_and_consumers_are_inverse() {
        for (w, rows) in [(2, 4), (4, 4), (8, 6)] {
            let g = Grid::new(w, rows).unwrap();
            let mut forward = Vec::new();
            let mut backward = Vec::new();
            for id in 0..g.tasks() {
                for &d in g.deps(id).as_slice() {
                    forward.push((d, id));
                    assert!(d < id, "a dependency comes earlier in the queue order");
                }
                for &c in g.consumers(id).as_slice() {
                    backward.push((id, c));
                }
            }
            forward.sort();
            backward.sort();
            assert_eq!(forward, backward);
        }
    }

    #[test]
    fn periodic_boundary_and_width_two() {
        let g = Grid::new(4, 2).unwrap();
        let d = |t, n| -> Vec<(u32, u32)> {
            g.deps(g.id(t, n))
                .as_slice()
                .iter()
                .map(|&x| g.coords(x))
                .collect()
        };
        assert_eq!(d(1, 4), [(1, 3), (1, 1)]);
        assert_eq!(d(2, 1), [(2, 4), (2, 2)]);
        assert_eq!(d(2, 2), [(1, 2)]);
        assert!(d(1, 1).is_empty());
        let g2 = Grid::new(2, 2).unwrap();
        assert_eq!(
            g2.deps(g2.id(1, 2)).as_slice().len(),
            1,
            "a dependency listed twice counts once"
        );
        assert_eq!(g2.consumers(g2.id(1, 1)).as_slice().len(), 1);
    }

    #[test]
    fn critical_path_has_two_tasks_per_row() {
        let g = Grid::new(8, 5).unwrap();
        let mut depth = vec![0u32; g.tasks() as usize];
        for id in 0..g.tasks() {
            depth[id as usize] = 1 + g
                .deps(id)
                .as_slice()
                .iter()
                .map(|&d| depth[d as usize])
                .max()
                .unwrap_or(0);
        }
        assert_eq!(depth.iter().max(), Some(&10));
    }

    #[test]
    fn invalid_grids() {
        assert!(Grid::new(3, 4).is_none());
        assert!(Grid::new(0, 4).is_none());
        assert!(Grid::new(4, 0).is_none());
    }
}
