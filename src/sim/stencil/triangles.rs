//! Checkpoint triangles of level L (docs/simulation.md §3.2), checkpoint tasks, and the precomputed
//! tables the simulation reads: membership, consumer triangles, entry checkpoints.

use super::graph::{Grid, Pair};

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

    /// The triangle of every task of row `t` into `ext`, by 0-based position plus one
    /// (`ext[n]` for T(t, n)), with the row's last position copied before it and its first
    /// after it, so that the neighbours of every position are read with no wrap-around test.
    /// Along a row the big Us and Ds alternate in runs of 2(H-1-k) + 1 and 2k + 1 positions
    /// (row k of the band), the U of centre j starting H-1-k before the centre X_j.
    fn fill_row(&self, t: u32, ext: &mut Vec<u32>) {
        let w = self.grid.width();
        let h = self.h;
        let b = (t - 1) / h;
        let k = (t - 1) % h;
        let base = b * self.per_band();
        // X_0 - 1 = H(b + 1) - 1 (mod W), 0-based; the U of centre 0 starts H-1-k before.
        let x0 = ((h as u64 * (b as u64 + 1) - 1) % w as u64) as u32;
        let p = ((x0 as u64 + w as u64 - (h - 1 - k) as u64) % w as u64) as usize;
        let wu = w as usize;
        ext.resize(wu + 2, 0);
        // The runs in order from position p, a U and a D (2H positions) per centre, then turned
        // so that position 0 comes first.
        let row = &mut ext[1..=wu];
        let up = (2 * (h - 1 - k) + 1) as usize;
        if h == 1 {
            // Runs of one position each (every row at level 1).
            for (j, run) in (0..).zip(row.chunks_exact_mut(2)) {
                run[0] = base + 2 * j;
                run[1] = base + 2 * j + 1;
            }
        } else {
            for (j, run) in (0..).zip(row.chunks_exact_mut(2 * h as usize)) {
                let (u, d) = run.split_at_mut(up);
                u.fill(base + 2 * j);
                d.fill(base + 2 * j + 1);
            }
        }
        row.rotate_right(p);
        ext[0] = ext[wu];
        ext[wu + 1] = ext[1];
    }
}

/// The tables a run reads, built once per configuration and shared by every run.
///
/// Per task only: triangle and checkpoint flag (two bytes a task up to 2^15 triangles, else
/// five), and two counts per triangle. Dependencies and consumers follow from a task's id ([`Layout::deps`],
/// [`Layout::consumers`]): tables of them were 16 bytes a task, whose pages cost more to
/// fault in and to read than the arithmetic. What a triangle holds, reads and watches follows
/// from the geometry of [`Triangles`] and is enumerated when needed (on securing and on
/// recovery), never stored: a list per triangle was three allocations per task at level 1.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The task grid.
    pub grid: Grid,
    /// The checkpoint triangles (`None`: no checkpoints, the whole run is one triangle).
    pub tris: Option<Triangles>,
    /// The checkpoint triangle of each task and whether it is a checkpoint task.
    task_tris: TaskTris,
    count: u32,
    /// Divisions by W and by the triangles per band, without a divide instruction.
    by_width: FastDiv,
    by_band: FastDiv,
}

impl Layout {
    /// The tables for `grid` with checkpoint triangles `tris` (`None`: no checkpoints).
    pub fn new(grid: Grid, tris: Option<Triangles>) -> Layout {
        let n = grid.tasks() as usize;
        let w = grid.width();
        let rows = grid.rows();
        // Row by row, with no division per task. A task is a checkpoint task when a consumer
        // (a D beside a U in its row, the U above a D; see `Layout::consumers`) lies in another
        // triangle: read off the triangles of rows t and t + 1.
        let count = tris.map_or(1, |tr| tr.count());
        let mut task_tris = if count <= NARROW_TRIS {
            TaskTris::Narrow(Vec::with_capacity(n))
        } else {
            TaskTris::Wide(Vec::with_capacity(n), Vec::with_capacity(n))
        };
        let mut row_of = Vec::with_capacity(w as usize);
        let mut row_ckpt = Vec::with_capacity(w as usize);
        let mut row_tri = Vec::with_capacity(w as usize + 2);
        let mut next_tri = Vec::with_capacity(w as usize + 2);
        if let Some(tr) = tris {
            tr.fill_row(1, &mut row_tri);
        }
        let wu = w as usize;
        for t in 1..=rows {
            let odd = (t - 1) % 2 == 1;
            // Without checkpoints every task is in triangle 0 and none is a checkpoint task.
            let Some(tr) = tris else {
                task_tris.extend_none(wu);
                continue;
            };
            if t < rows {
                tr.fill_row(t + 1, &mut next_tri);
            }
            // The last row feeds no row: compared with itself, no D of it is a checkpoint.
            let up = if t < rows { &next_tri } else { &row_tri };
            row_of.clear();
            row_ckpt.clear();
            if odd {
                row_triangles::<1>(&row_tri, up, &mut row_of, &mut row_ckpt);
            } else {
                row_triangles::<0>(&row_tri, up, &mut row_of, &mut row_ckpt);
            }
            task_tris.extend(&row_of, &row_ckpt);
            std::mem::swap(&mut row_tri, &mut next_tri);
        }
        Layout {
            grid,
            tris,
            task_tris,
            count,
            by_width: FastDiv::new(w),
            by_band: FastDiv::new(tris.map_or(1, |tr| tr.per_band())),
        }
    }

    /// Row (0-based) and place in the row of task `t`: in row t (1-based) the ids run over
    /// the up-triangles U_j (at n = 2j + 1 + o, o = (t-1) % 2, id (t-1)W + j), then the
    /// down-triangles D_j (at n = 2j + 2 - o, id (t-1)W + W/2 + j).
    #[inline(always)]
    fn place(&self, t: u32) -> (u32, u32) {
        // W >= 2: the multiplier is the real one, no test for a divisor of 1.
        let row = ((self.by_width.m as u128 * t as u128) >> 64) as u32;
        (row, t - row * self.grid.width())
    }

    /// The tasks whose outputs task `t` reads, as [`Grid::deps`] lists them.
    ///
    /// A U reads the D below it (W/2 ids back); a D reads its two U neighbours. With j taken
    /// modulo W/2, those at n - 1 and n + 1 are: o = 0: D_j reads U_j, U_{j+1}; o = 1: D_j reads
    /// U_{j-1}, U_j (one id when W = 2).
    #[inline(always)]
    pub fn deps(&self, t: u32) -> Pair {
        let (row, r) = self.place(t);
        let half = self.grid.width() / 2;
        if r < half {
            if row == 0 {
                Pair::default()
            } else {
                Pair::one(t - half)
            }
        } else {
            let u = t - r;
            let j = r - half;
            if row % 2 == 1 {
                let prev = if j == 0 { half - 1 } else { j - 1 };
                Pair::two(u + prev, u + j)
            } else {
                let next = if j + 1 == half { 0 } else { j + 1 };
                Pair::two(u + j, u + next)
            }
        }
    }

    /// The tasks that read the output of task `t`, as [`Grid::consumers`] lists them.
    ///
    /// A U feeds its two D neighbours: o = 0: U_j feeds D_{j-1}, D_j; o = 1: U_j feeds D_j,
    /// D_{j+1}. A D feeds the U above it (W/2 ids on), none in the last row.
    #[inline(always)]
    pub fn consumers(&self, t: u32) -> Pair {
        let (row, r) = self.place(t);
        let half = self.grid.width() / 2;
        if r < half {
            let d = t - r + half;
            if row % 2 == 1 {
                let next = if r + 1 == half { 0 } else { r + 1 };
                Pair::two(d + r, d + next)
            } else {
                let prev = if r == 0 { half - 1 } else { r - 1 };
                Pair::two(d + prev, d + r)
            }
        } else if row + 1 < self.grid.rows() {
            Pair::one(t + half)
        } else {
            Pair::default()
        }
    }

    /// The checkpoint triangle of task `t` (0 without checkpoints: the whole run is one).
    #[inline(always)]
    pub fn tri_of(&self, t: u32) -> u32 {
        match &self.task_tris {
            TaskTris::Narrow(v) => (v[t as usize] & NARROW_MASK) as u32,
            TaskTris::Wide(tri, _) => tri[t as usize],
        }
    }

    /// Whether task `t` is a checkpoint task (a consumer in another triangle).
    #[inline(always)]
    pub fn is_checkpoint(&self, t: u32) -> bool {
        match &self.task_tris {
            TaskTris::Narrow(v) => v[t as usize] > NARROW_MASK,
            TaskTris::Wide(_, ckpt) => ckpt[t as usize],
        }
    }

    /// Number of triangles.
    pub fn triangles(&self) -> usize {
        self.count as usize
    }

    /// Tasks per triangle and checkpoint tasks per triangle: the sizes from the geometry
    /// ([`Layout::tri_size`]), the checkpoint tasks by a pass over the tasks, which costs less
    /// than keeping a table per triangle (four bytes a task at level 1). Checkpoint tasks are
    /// few, so the pass mostly tests a flag.
    pub fn triangle_counts(&self) -> (Vec<u32>, Vec<u32>) {
        let size = (0..self.count).map(|x| self.tri_size(x)).collect();
        let mut checkpoints = vec![0u32; self.triangles()];
        match &self.task_tris {
            TaskTris::Narrow(v) => {
                for &e in v {
                    if e > NARROW_MASK {
                        checkpoints[(e & NARROW_MASK) as usize] += 1;
                    }
                }
            }
            TaskTris::Wide(tri, ckpt) => {
                for (&x, &c) in tri.iter().zip(ckpt) {
                    if c {
                        checkpoints[x as usize] += 1;
                    }
                }
            }
        }
        (size, checkpoints)
    }

    /// Number of tasks of triangle `x`.
    pub fn tri_size(&self, x: u32) -> u32 {
        let s = self.span(x);
        match s.kind {
            None => s.rows * s.w,
            // Rows k = 0..rows of 2k + 1 tasks.
            Some(Kind::Down) => s.rows * s.rows,
            // Rows of 2(H-1-k) + 1 tasks: H^2 minus the (H - rows)^2 of the missing rows.
            Some(Kind::Up) => s.h * s.h - (s.h - s.rows) * (s.h - s.rows),
        }
    }

    /// The rows of triangle `x`: the first row, how many, and per row the span of positions.
    fn span(&self, x: u32) -> Span {
        let g = self.grid;
        let w = g.width();
        match self.tris {
            None => Span {
                first_row: 1,
                rows: g.rows(),
                w,
                p0: 0,
                h: 0,
                kind: None,
            },
            Some(tr) => {
                let h = tr.height();
                let b = self.by_band.div(x);
                let j = (x - b * tr.per_band()) / 2;
                // The centre X_j = H + bH + 2Hj (mod W), as a 0-based position p0 = X_j - 1;
                // 2Hj < W, and H(b + 1) - 1 < H + T < 2^32 (W T < 2^32, H <= W/2).
                let p0 = self.by_width.rem(h * (b + 1) - 1);
                let p0 = wrap(p0 as u64 + 2 * h as u64 * j as u64, w);
                let first = b * h + 1;
                let last = g.rows().min(first + (h - 1));
                Span {
                    first_row: first,
                    rows: last + 1 - first,
                    w,
                    p0,
                    h,
                    kind: Some(tr.kind(x)),
                }
            }
        }
    }

    /// Calls `f` on each task of triangle `x`, row by row (within a row in no particular
    /// order).
    pub fn for_each_task(&self, x: u32, f: impl FnMut(u32)) {
        self.walk(x, false, f)
    }

    /// Calls `f` on the tasks of triangle `x` that may read outside it, in the order of
    /// [`Layout::for_each_task`]: its whole first row and the two ends of every other row. A
    /// task inside a later row reads the task below it, in the wider (U) or one-narrower (D)
    /// row beneath, or its neighbours in its own row, all in `x`; so these are a superset of the
    /// tasks with an entry, at O(H) of the triangle's O(H^2) tasks.
    pub fn for_each_edge_task(&self, x: u32, f: impl FnMut(u32)) {
        self.walk(x, true, f)
    }

    /// The walk of [`Layout::for_each_task`], or of [`Layout::for_each_edge_task`] if
    /// `edges`.
    #[inline(always)]
    fn walk(&self, x: u32, edges: bool, mut f: impl FnMut(u32)) {
        let s = self.span(x);
        let g = self.grid;
        for k in 0..s.rows {
            let t = s.first_row + k;
            let (start, len) = s.row(k);
            if !edges || k == 0 || len <= 2 {
                for i in 0..len as u64 {
                    f(g.id(t, wrap(start as u64 + i, s.w) + 1));
                }
            } else {
                f(g.id(t, start + 1));
                f(g.id(t, wrap(start as u64 + len as u64 - 1, s.w) + 1));
            }
        }
    }

    /// Tasks of triangle `x`, row by row (within a row in no particular order).
    pub fn tasks_of(&self, x: u32) -> impl Iterator<Item = u32> + '_ {
        let s = self.span(x);
        let g = self.grid;
        (0..s.rows).flat_map(move |k| {
            let t = s.first_row + k;
            let (start, len) = s.row(k);
            (0..len as u64).map(move |i| g.id(t, wrap(start as u64 + i, s.w) + 1))
        })
    }

    /// Calls `f` on the checkpoint tasks whose release the securing of triangle `x` may allow:
    /// every checkpoint task it reads (its entry checkpoints and its own checkpoint tasks read
    /// inside it), and possibly some of its own that it does not read (repeats possible).
    ///
    /// Only its edge tasks ([`Layout::for_each_edge_task`]) and what they read are looked at,
    /// O(H) of its O(H^2) tasks. A task inside a later row reads, besides its triangle's entries
    /// (read by edge tasks only), the D below it, whose one consumer is that task (so no
    /// checkpoint), or the Us beside it, a checkpoint only if a D beside it lies outside (so the
    /// U ends its row: an edge task). The extra calls change nothing: a checkpoint task whose
    /// consumer triangles are all secured was released when the last of them was secured (it
    /// reads the task) or when the task completed. Triangles of at most four rows are walked
    /// whole: most of their tasks are edge tasks, and the whole walk costs less.
    pub fn for_each_watched(&self, x: u32, mut f: impl FnMut(u32)) {
        if self.tris.is_some_and(|tr| tr.height() <= 4) {
            return self.for_each_task(x, |t| {
                for d in self.deps(t).iter() {
                    if self.is_checkpoint(d) {
                        f(d);
                    }
                }
            });
        }
        self.for_each_edge_task(x, |t| {
            for d in self.deps(t).iter() {
                if self.is_checkpoint(d) {
                    f(d);
                }
            }
            if self.is_checkpoint(t) {
                f(t);
            }
        })
    }

    /// Tasks of other triangles that triangle `x` reads (repeats possible).
    pub fn entries_of(&self, x: u32) -> impl Iterator<Item = u32> + '_ {
        self.tasks_of(x)
            .flat_map(|t| self.deps(t).iter())
            .filter(move |&d| self.tri_of(d) != x)
    }

    /// Whether every triangle consuming task `t` satisfies `f`.
    #[inline(always)]
    pub fn all_consumer_tris(&self, t: u32, mut f: impl FnMut(u32) -> bool) -> bool {
        // A loop, not `all`: its fold was left out of line once `tri_of` became a match.
        for c in self.consumers(t).iter() {
            if !f(self.tri_of(c)) {
                return false;
            }
        }
        true
    }
}

/// Triangle ids of [`TaskTris::Narrow`] take 15 bits, below its checkpoint flag.
const NARROW_TRIS: u32 = 1 << 15;
const NARROW_MASK: u16 = (NARROW_TRIS - 1) as u16;

/// The triangle and the checkpoint flag of every task. Two bytes a task whenever the ids fit
/// (at levels 2 and up on a 256 x 256 grid), so that a run faults in and reads fewer pages.
#[derive(Debug, Clone)]
enum TaskTris {
    /// Triangle `| flag << 15`, with at most 2^15 triangles (ids below 2^15).
    Narrow(Vec<u16>),
    /// Triangle, flag.
    Wide(Vec<u32>, Vec<bool>),
}

impl TaskTris {
    /// Appends a row of tasks in triangle 0, none a checkpoint task.
    fn extend_none(&mut self, n: usize) {
        match self {
            TaskTris::Narrow(v) => v.extend(std::iter::repeat_n(0, n)),
            TaskTris::Wide(tri, ckpt) => {
                tri.extend(std::iter::repeat_n(0, n));
                ckpt.extend(std::iter::repeat_n(false, n));
            }
        }
    }

    /// Appends a row of tasks: their triangles and flags.
    fn extend(&mut self, row_of: &[u32], row_ckpt: &[bool]) {
        match self {
            TaskTris::Narrow(v) => v.extend(
                row_of
                    .iter()
                    .zip(row_ckpt)
                    .map(|(&x, &c)| x as u16 | (c as u16) << 15),
            ),
            TaskTris::Wide(tri, ckpt) => {
                tri.extend_from_slice(row_of);
                ckpt.extend_from_slice(row_ckpt);
            }
        }
    }
}

/// Appends the triangles and checkpoint flags of a row's Us then Ds, from the row's triangles
/// and the next row's (`cur`, `up`, extended by [`Triangles::fill_row`]), with `O` = (t-1) % 2
/// (a constant, so that the positions below are too). The positions 2j, 2j + 1 and their
/// neighbours are `ext[2j..2j + 4]`: U_j sits at 2j + O and feeds the positions beside it; D_j
/// sits at 2j + 1 - O and feeds the same position in the next row.
fn row_triangles<const O: usize>(
    cur: &[u32],
    up: &[u32],
    tri_of: &mut Vec<u32>,
    is_checkpoint: &mut Vec<bool>,
) {
    let half = (cur.len() - 2) / 2;
    // Cut to the length the indices below stay under, so that they need no test.
    let (cur, up) = (&cur[..2 * half + 2], &up[..2 * half + 2]);
    tri_of.extend((0..half).map(|j| cur[2 * j + 1 + O]));
    tri_of.extend((0..half).map(|j| cur[2 * j + 2 - O]));
    is_checkpoint.extend((0..half).map(|j| {
        let p = 2 * j + O;
        cur[p] != cur[p + 1] || cur[p + 2] != cur[p + 1]
    }));
    is_checkpoint.extend((0..half).map(|j| up[2 * j + 2 - O] != cur[2 * j + 2 - O]));
}

/// Division of 32-bit numbers by a fixed divisor as a multiplication (Lemire, Kaser and Kurz,
/// "Faster remainder by direct computation", 2019): with `m = ceil(2^64 / d)`, `n / d` is the
/// high 64 bits of `m n` for every 32-bit `n`.
#[derive(Debug, Clone, Copy)]
struct FastDiv {
    d: u32,
    m: u64,
}

impl FastDiv {
    fn new(d: u32) -> FastDiv {
        let d = d.max(1);
        // d = 1 would need m = 2^64; the quotient is then n itself.
        let m = if d == 1 { 0 } else { u64::MAX / d as u64 + 1 };
        FastDiv { d, m }
    }

    fn div(&self, n: u32) -> u32 {
        if self.d == 1 {
            n
        } else {
            ((self.m as u128 * n as u128) >> 64) as u32
        }
    }

    fn rem(&self, n: u32) -> u32 {
        n - self.div(n) * self.d
    }
}

/// `p` modulo `w`, for `p < 2w`.
fn wrap(p: u64, w: u32) -> u32 {
    (if p >= w as u64 { p - w as u64 } else { p }) as u32
}

/// Where a triangle lies: rows `first_row..first_row + rows`, row k spanning [`Span::row`].
#[derive(Debug, Clone, Copy)]
struct Span {
    first_row: u32,
    rows: u32,
    w: u32,
    /// The centre's 0-based position.
    p0: u32,
    h: u32,
    /// `None`: no checkpoints, every row whole.
    kind: Option<Kind>,
}

impl Span {
    /// Row k: the first 0-based position and the number of positions (wrapping).
    fn row(&self, k: u32) -> (u32, u32) {
        let (w, p0, h) = (self.w as u64, self.p0 as u64, self.h as u64);
        match self.kind {
            None => (0, self.w),
            // Row k of a big U: |n - X_j| <= H-1-k.
            Some(Kind::Up) => {
                let r = h - 1 - k as u64;
                (wrap(p0 + w - r, self.w), 2 * r as u32 + 1)
            }
            // Row k of a big D, centred at X_j + H: |n - X_j - H| <= k; p0 + H + W - k < 3W.
            Some(Kind::Down) => {
                let p = p0 + h + w - k as u64;
                (wrap(if p >= 2 * w { p - w } else { p }, self.w), 2 * k + 1)
            }
        }
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
            let total: usize = (0..l.triangles() as u32).map(|x| l.tasks_of(x).count()).sum();
            prop_assert_eq!(total, g.tasks() as usize);
            for x in 0..l.triangles() as u32 {
                prop_assert!(l.tasks_of(x).count() as u32 <= h * h);
                prop_assert_eq!(l.tasks_of(x).count() as u32, l.tri_size(x));
                for t in l.tasks_of(x) {
                    prop_assert_eq!(l.tri_of(t), x);
                }
            }
            for id in 0..g.tasks() as usize {
                let leaves = l.consumers(id as u32).iter().any(|c| l.tri_of(c) != l.tri_of(id as u32));
                prop_assert_eq!(l.is_checkpoint(id as u32), leaves);
            }
        }
    }
    proptest! {
        // The row-by-row tables against the per-task definitions of `Grid` and `Triangles`,
        // and the enumerations per triangle against a scan of every task.
        #[test]
        fn tables_and_enumerations_match_the_definitions(
            level in 1u32..6, mult in 1u32..4, rows in 1u32..30, checkpoint: bool
        ) {
            let h = 1u32 << (level - 1);
            let g = Grid::new(2 * h * mult, rows).unwrap();
            let tr = if checkpoint { Triangles::new(g, level) } else { None };
            let l = Layout::new(g, tr);
            let mut members = vec![Vec::new(); l.triangles()];
            let counts = l.triangle_counts();
            for id in 0..g.tasks() {
                let (t, n) = g.coords(id);
                prop_assert_eq!(l.deps(id), g.deps(id));
                prop_assert_eq!(l.consumers(id), g.consumers(id));
                let x = tr.map_or(0, |tr| tr.of(t, n));
                prop_assert_eq!(l.tri_of(id), x);
                members[x as usize].push(id);
            }
            for (x, m) in members.iter().enumerate() {
                let x = x as u32;
                let mut got: Vec<u32> = l.tasks_of(x).collect();
                got.sort_unstable();
                prop_assert_eq!(&got, m);
                let mut each = Vec::new();
                l.for_each_task(x, |t| each.push(t));
                each.sort_unstable();
                prop_assert_eq!(&each, m);
                prop_assert_eq!(l.tri_size(x) as usize, m.len());
                prop_assert_eq!(counts.0[x as usize] as usize, m.len());
                let ck = m.iter().filter(|&&t| l.is_checkpoint(t)).count();
                prop_assert_eq!(counts.1[x as usize] as usize, ck);
                // Read by x: the dependencies of its tasks.
                let read: BTreeSet<u32> =
                    m.iter().flat_map(|&t| g.deps(t).as_slice().to_vec()).collect();
                let mut watched = BTreeSet::new();
                l.for_each_watched(x, |c| {
                    watched.insert(c);
                });
                let expect: BTreeSet<u32> =
                    read.iter().copied().filter(|&d| l.is_checkpoint(d)).collect();
                prop_assert!(watched.is_superset(&expect), "{:?} misses some of {:?}", watched, expect);
                // Beyond what x reads, only its own checkpoint tasks.
                prop_assert!(watched
                    .difference(&expect)
                    .all(|&c| l.tri_of(c) == x && l.is_checkpoint(c)));
                let entries: BTreeSet<u32> = l.entries_of(x).collect();
                let expect: BTreeSet<u32> =
                    read.iter().copied().filter(|&d| l.tri_of(d) != x).collect();
                prop_assert_eq!(&entries, &expect);
                // The edge tasks: members, in the order of the full walk, reading every entry.
                let mut edge = Vec::new();
                l.for_each_edge_task(x, |t| edge.push(t));
                let mut walk = Vec::new();
                l.for_each_task(x, |t| walk.push(t));
                let mut at = walk.iter();
                prop_assert!(edge.iter().all(|t| at.any(|u| u == t)), "{:?} in {:?}", edge, walk);
                let read_by_edge: BTreeSet<u32> = edge
                    .iter()
                    .flat_map(|&t| g.deps(t).as_slice().to_vec())
                    .filter(|&d| l.tri_of(d) != x)
                    .collect();
                prop_assert_eq!(read_by_edge, expect);
            }
        }
    }

    use crate::sim::stencil::graph::Shape;
    use std::collections::BTreeSet;

    proptest! {
        #[test]
        fn fast_division_is_division(d in 1u32.., n: u32) {
            let f = FastDiv::new(d);
            prop_assert_eq!(f.div(n), n / d);
            prop_assert_eq!(f.rem(n), n % d);
        }
    }

    #[test]
    fn fast_division_at_the_edges() {
        for d in [1, 2, 3, 7, 641, 65535, 65536, u32::MAX - 1, u32::MAX] {
            let f = FastDiv::new(d);
            for n in [0, 1, d - 1, d, d.saturating_add(1), u32::MAX - 1, u32::MAX] {
                assert_eq!((f.div(n), f.rem(n)), (n / d, n % d), "{n} / {d}");
            }
        }
    }

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
            assert_eq!(l.is_checkpoint(id), !plain);
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
            let mut v: Vec<_> = l.tasks_of(x).map(|i| g.coords(i)).collect();
            v.sort();
            v
        };
        let u0 = tr.of(1, 2);
        assert_eq!(group(u0), [(1, 1), (1, 2), (1, 3), (2, 2)]);
        assert_eq!(group(tr.of(1, 4)), [(1, 4), (2, 1), (2, 3), (2, 4)]);
        assert_eq!(group(tr.of(3, 4)), [(3, 1), (3, 3), (3, 4), (4, 4)]);
        assert_eq!(group(tr.of(3, 2)), [(3, 2), (4, 1), (4, 2), (4, 3)]);
        let mut ck: Vec<_> = (0..16)
            .filter(|&i| l.is_checkpoint(i))
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
        let mut e: Vec<_> = l.entries_of(tr.of(1, 4)).map(|i| g.coords(i)).collect();
        e.sort();
        e.dedup();
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
        assert!((0..g.tasks()).all(|t| !l.is_checkpoint(t)));
        let mut all: Vec<u32> = l.tasks_of(0).collect();
        all.sort_unstable();
        assert_eq!(all, (0..32).collect::<Vec<_>>());
    }
}
