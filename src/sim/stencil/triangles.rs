//! Checkpoint triangles of level L (docs/simulation.md §3.2), checkpoint tasks, and the precomputed
//! tables the simulation reads: membership, consumer triangles, entry checkpoints.

use super::graph::Grid;

/// The kind of a big triangle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A big up-triangle (it depends only on the big down-triangle below it).
    Up,
    /// A big down-triangle (it depends only on its two neighbouring big up-triangles).
    Down,
}

/// Checkpoint triangles of one level over one grid.
///
/// ```
/// use ckpt::sim::stencil::{graph::Grid, triangles::{Kind, Triangles}};
/// let g = Grid::new(4, 4).unwrap();
/// let tr = Triangles::new(g, 2).unwrap();
/// // Band 0 of level 2: the big U centred at n = 2 holds T(1,1), T(1,2), T(1,3), T(2,2).
/// let u = tr.of(1, 2);
/// assert_eq!(tr.kind(u), Kind::Up);
/// assert!([(1, 1), (1, 3), (2, 2)].iter().all(|&(t, n)| tr.of(t, n) == u));
/// assert_ne!(tr.of(1, 4), u);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Triangles {
    grid: Grid,
    h: u32,
}

impl Triangles {
    /// Level `level` (>= 1) triangles: H = 2^(level-1) rows; `None` unless W is a multiple
    /// of 2H.
    pub fn new(grid: Grid, level: u32) -> Option<Triangles> {
        if level == 0 || level > 31 {
            return None;
        }
        let h = 1u32 << (level - 1);
        let two_h = 2u64 * h as u64;
        (grid.width() as u64)
            .is_multiple_of(two_h)
            .then_some(Triangles { grid, h })
    }

    /// H, the height of a band in rows.
    pub fn height(&self) -> u32 {
        self.h
    }

    /// Triangles per band: W/(2H) big Us and as many big Ds.
    pub fn per_band(&self) -> u32 {
        self.grid.width() / self.h
    }

    /// Number of bands (the last may be cut short by T).
    pub fn bands(&self) -> u32 {
        self.grid.rows().div_ceil(self.h)
    }

    /// Number of triangles.
    pub fn count(&self) -> u32 {
        self.bands() * self.per_band()
    }

    /// The triangle of T(t, n). Ids: band b holds `b*W/H .. (b+1)*W/H`, with the big U of
    /// centre index j at `2j` and the big D centred H to its right at `2j + 1`.
    pub fn of(&self, t: u32, n: u32) -> u32 {
        let w = self.grid.width();
        let h = self.h;
        let b = (t - 1) / h;
        let k = (t - 1) % h;
        // Offset of n from the first centre X_0 = H + bH (mod W).
        let first = ((h as u64 + b as u64 * h as u64) % w as u64) as u32;
        let offset = (n + w - first) % w;
        let centres = w / (2 * h);
        let j = offset / (2 * h);
        let r = offset % (2 * h);
        let base = b * self.per_band();
        if r <= h - 1 - k {
            base + 2 * j
        } else if 2 * h - r <= h - 1 - k {
            base + 2 * ((j + 1) % centres)
        } else {
            debug_assert!(r.abs_diff(h) <= k);
            base + 2 * j + 1
        }
    }

    /// Whether triangle `tri` is a big U or a big D.
    pub fn kind(&self, tri: u32) -> Kind {
        if tri.is_multiple_of(2) {
            Kind::Up
        } else {
            Kind::Down
        }
    }

    /// The band of triangle `tri`.
    pub fn band(&self, tri: u32) -> u32 {
        tri / self.per_band()
    }
}

/// The tables a run reads, built once per configuration and shared by every run.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The task grid.
    pub grid: Grid,
    /// Dependencies of each task.
    pub deps: Vec<super::graph::Pair>,
    /// Consumers of each task.
    pub consumers: Vec<super::graph::Pair>,
    /// The checkpoint triangle of each task (all 0 without checkpoints: the whole run is one).
    pub tri_of: Vec<u32>,
    /// Whether each task is a checkpoint task (a consumer in another triangle).
    pub is_checkpoint: Vec<bool>,
    /// Distinct triangles consuming each checkpoint task (empty for plain tasks).
    pub consumer_tris: Vec<super::graph::Pair>,
    /// Tasks of each triangle (CSR: `tri_start[x]..tri_start[x+1]` into `tri_tasks`).
    pub tri_start: Vec<u32>,
    /// See `tri_start`.
    pub tri_tasks: Vec<u32>,
    /// Checkpoint tasks per triangle.
    pub tri_checkpoints: Vec<u32>,
    /// For each triangle, the checkpoint tasks it consumes (its entry checkpoints and its own
    /// checkpoint tasks read inside it): the ones whose release its securing may allow (CSR).
    pub watch_start: Vec<u32>,
    /// See `watch_start`.
    pub watch: Vec<u32>,
    /// For each triangle, the tasks of other triangles it reads (its entry checkpoints, CSR).
    pub entry_start: Vec<u32>,
    /// See `entry_start`.
    pub entries: Vec<u32>,
}

fn csr(lists: Vec<Vec<u32>>) -> (Vec<u32>, Vec<u32>) {
    let mut start = Vec::with_capacity(lists.len() + 1);
    let mut items = Vec::new();
    start.push(0);
    for mut l in lists {
        l.sort_unstable();
        l.dedup();
        items.extend_from_slice(&l);
        start.push(items.len() as u32);
    }
    (start, items)
}

impl Layout {
    /// The tables for `grid` with checkpoint triangles `tris` (`None`: no checkpoints).
    pub fn new(grid: Grid, tris: Option<Triangles>) -> Layout {
        let n = grid.tasks() as usize;
        let deps: Vec<_> = (0..n as u32).map(|i| grid.deps(i)).collect();
        let consumers: Vec<_> = (0..n as u32).map(|i| grid.consumers(i)).collect();
        let (tri_of, count): (Vec<u32>, u32) = match tris {
            Some(tr) => (
                (0..n as u32)
                    .map(|i| {
                        let (t, x) = grid.coords(i);
                        tr.of(t, x)
                    })
                    .collect(),
                tr.count(),
            ),
            None => (vec![0; n], 1),
        };
        let is_checkpoint: Vec<bool> = (0..n)
            .map(|i| {
                tris.is_some()
                    && consumers[i]
                        .as_slice()
                        .iter()
                        .any(|&c| tri_of[c as usize] != tri_of[i])
            })
            .collect();
        let mut consumer_tris = vec![super::graph::Pair::default(); n];
        let mut members = vec![Vec::new(); count as usize];
        let mut watch = vec![Vec::new(); count as usize];
        let mut entries = vec![Vec::new(); count as usize];
        let mut tri_checkpoints = vec![0u32; count as usize];
        for i in 0..n {
            members[tri_of[i] as usize].push(i as u32);
            if is_checkpoint[i] {
                tri_checkpoints[tri_of[i] as usize] += 1;
                let mut p = super::graph::Pair::default();
                for &c in consumers[i].as_slice() {
                    let x = tri_of[c as usize];
                    p.push(x);
                    watch[x as usize].push(i as u32);
                }
                consumer_tris[i] = p;
            }
            for &d in deps[i].as_slice() {
                if tri_of[d as usize] != tri_of[i] {
                    entries[tri_of[i] as usize].push(d);
                }
            }
        }
        let (tri_start, tri_tasks) = csr(members);
        let (watch_start, watch) = csr(watch);
        let (entry_start, entries) = csr(entries);
        Layout {
            grid,
            deps,
            consumers,
            tri_of,
            is_checkpoint,
            consumer_tris,
            tri_start,
            tri_tasks,
            tri_checkpoints,
            watch_start,
            watch,
            entry_start,
            entries,
        }
    }

    /// Number of triangles.
    pub fn triangles(&self) -> usize {
        self.tri_checkpoints.len()
    }

    /// Tasks of triangle `x`.
    pub fn tasks_of(&self, x: u32) -> &[u32] {
        &self.tri_tasks
            [self.tri_start[x as usize] as usize..self.tri_start[x as usize + 1] as usize]
    }

    /// Checkpoint tasks whose release the securing of triangle `x` may allow.
    pub fn watched_by(&self, x: u32) -> &[u32] {
        &self.watch
            [self.watch_start[x as usize] as usize..self.watch_start[x as usize + 1] as usize]
    }

    /// Tasks of other triangles that triangle `x` reads.
    pub fn entries_of(&self, x: u32) -> &[u32] {
        &self.entries
            [self.entry_start[x as usize] as usize..self.entry_start[x as usize + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        // Membership partitions the grid into triangles of at most H^2 tasks, and every
        // checkpoint task's output leaves its triangle while every plain output stays inside.
        #[test]
        fn triangles_partition_the_grid(level in 1u32..5, mult in 1u32..4, rows in 1u32..40) {
            let h = 1u32 << (level - 1);
            let g = Grid::new(2 * h * mult, rows).unwrap();
            let tr = Triangles::new(g, level).unwrap();
            let l = Layout::new(g, Some(tr));
            let total: usize = (0..l.triangles() as u32).map(|x| l.tasks_of(x).len()).sum();
            prop_assert_eq!(total, g.tasks() as usize);
            for x in 0..l.triangles() as u32 {
                prop_assert!(l.tasks_of(x).len() as u32 <= h * h);
                for &t in l.tasks_of(x) {
                    prop_assert_eq!(l.tri_of[t as usize], x);
                }
            }
            for id in 0..g.tasks() as usize {
                let leaves = l.consumers[id].as_slice().iter().any(|&c| l.tri_of[c as usize] != l.tri_of[id]);
                prop_assert_eq!(l.is_checkpoint[id], leaves);
            }
        }
    }
    use crate::sim::stencil::graph::Shape;

    fn circ(a: u32, b: u32, w: u32) -> u32 {
        let d = a.abs_diff(b) % w;
        d.min(w - d)
    }

    #[test]
    fn level_one_is_one_task_per_triangle() {
        let g = Grid::new(8, 5).unwrap();
        let tr = Triangles::new(g, 1).unwrap();
        let mut seen: Vec<u32> = (1..=5)
            .flat_map(|t| (1..=8).map(move |n| (t, n)))
            .map(|(t, n)| tr.of(t, n))
            .collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 40);
        assert_eq!(tr.count(), 40);
        // Every task with a consumer is a checkpoint task; only row T's Ds are plain.
        let l = Layout::new(g, Some(tr));
        for id in 0..g.tasks() {
            let (t, n) = g.coords(id);
            let plain = t == 5 && g.shape(t, n) == Shape::Down;
            assert_eq!(l.is_checkpoint[id as usize], !plain);
        }
    }

    #[test]
    fn membership_matches_the_definition_and_sizes() {
        for (w, rows, level) in [
            (8, 8, 2),
            (16, 16, 3),
            (16, 13, 3),
            (32, 32, 4),
            (64, 40, 5),
            (8, 8, 3),
        ] {
            let g = Grid::new(w, rows).unwrap();
            let tr = Triangles::new(g, level).unwrap();
            let h = tr.height();
            let mut size = vec![0u32; tr.count() as usize];
            for t in 1..=rows {
                let b = (t - 1) / h;
                let k = (t - 1) % h;
                for n in 1..=w {
                    let x = tr.of(t, n);
                    assert_eq!(tr.band(x), b);
                    let j = (x % tr.per_band()) / 2;
                    let centre = (h + b * h + 2 * h * j) % w;
                    let centre = if centre == 0 { w } else { centre };
                    match tr.kind(x) {
                        Kind::Up => assert!(circ(n, centre, w) + k < h),
                        Kind::Down => {
                            assert!(circ(n, centre, w) + k >= h);
                            let dc = (centre + h - 1) % w + 1;
                            assert!(circ(n, dc, w) <= k);
                        }
                    }
                    size[x as usize] += 1;
                }
            }
            for x in 0..tr.count() {
                let full_rows = rows.min((tr.band(x) + 1) * h) - tr.band(x) * h;
                if full_rows == h {
                    assert_eq!(size[x as usize], h * h, "w {w} level {level} tri {x}");
                }
            }
        }
    }

    #[test]
    fn big_triangles_depend_like_small_ones() {
        for (w, rows, level) in [(8, 8, 2), (16, 16, 3), (32, 20, 4), (4, 4, 2), (16, 16, 1)] {
            let g = Grid::new(w, rows).unwrap();
            let tr = Triangles::new(g, level).unwrap();
            for id in 0..g.tasks() {
                let (t, n) = g.coords(id);
                let x = tr.of(t, n);
                for &d in g.deps(id).as_slice() {
                    let (dt, dn) = g.coords(d);
                    let y = tr.of(dt, dn);
                    if y == x {
                        continue;
                    }
                    match tr.kind(x) {
                        // A big U reads only the big D below it, centred where it is.
                        Kind::Up => {
                            assert_eq!(tr.kind(y), Kind::Down);
                            assert_eq!(tr.band(y) + 1, tr.band(x));
                            assert_eq!((y % tr.per_band()) / 2, (x % tr.per_band()) / 2);
                        }
                        // A big D reads only its two neighbouring big Us in its band.
                        Kind::Down => {
                            assert_eq!(tr.kind(y), Kind::Up);
                            assert_eq!(tr.band(y), tr.band(x));
                            let jx = (x % tr.per_band()) / 2;
                            let jy = (y % tr.per_band()) / 2;
                            let c = tr.per_band() / 2;
                            assert!(
                                jy == jx || jy == (jx + 1) % c,
                                "w {w} L {level}: {x} reads {y}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn hand_drawn_level_two_on_width_four() {
        let g = Grid::new(4, 4).unwrap();
        let tr = Triangles::new(g, 2).unwrap();
        let l = Layout::new(g, Some(tr));
        let group = |x: u32| -> Vec<(u32, u32)> {
            let mut v: Vec<_> = l.tasks_of(x).iter().map(|&i| g.coords(i)).collect();
            v.sort();
            v
        };
        let u0 = tr.of(1, 2);
        assert_eq!(group(u0), [(1, 1), (1, 2), (1, 3), (2, 2)]);
        assert_eq!(group(tr.of(1, 4)), [(1, 4), (2, 1), (2, 3), (2, 4)]);
        assert_eq!(group(tr.of(3, 4)), [(3, 1), (3, 3), (3, 4), (4, 4)]);
        assert_eq!(group(tr.of(3, 2)), [(3, 2), (4, 1), (4, 2), (4, 3)]);
        let mut ck: Vec<_> = (0..16)
            .filter(|&i| l.is_checkpoint[i as usize])
            .map(|i| g.coords(i))
            .collect();
        ck.sort();
        assert_eq!(
            ck,
            [
                (1, 1),
                (1, 3),
                (2, 1),
                (2, 2),
                (2, 3),
                (3, 1),
                (3, 3),
                (4, 4)
            ]
        );
        // The big D of band 0 enters through the checkpoints of the big U below... beside it.
        let mut e: Vec<_> = l
            .entries_of(tr.of(1, 4))
            .iter()
            .map(|&i| g.coords(i))
            .collect();
        e.sort();
        assert_eq!(e, [(1, 1), (1, 3), (2, 2)]);
    }

    #[test]
    fn width_must_be_a_multiple_of_two_h() {
        let g = Grid::new(12, 8).unwrap();
        assert!(Triangles::new(g, 2).is_some());
        assert!(Triangles::new(g, 3).is_none());
        assert!(Triangles::new(g, 0).is_none());
    }

    #[test]
    fn no_checkpoints_means_one_triangle_and_no_checkpoint_tasks() {
        let g = Grid::new(8, 4).unwrap();
        let l = Layout::new(g, None);
        assert_eq!(l.triangles(), 1);
        assert!(l.is_checkpoint.iter().all(|&c| !c));
        assert_eq!(l.tasks_of(0).len(), 32);
    }
}
