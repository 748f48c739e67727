//! Adaptive Gauss-Kronrod quadrature (7-point Gauss, 15-point Kronrod), globally adaptive:
//! the panel with the largest error estimate is split until the total estimate meets the
//! tolerance.

// QUADPACK's constants are kept as published, beyond f64 precision.
#![allow(clippy::excessive_precision)]

// Nodes and weights of the 15-point Kronrod rule and its embedded 7-point Gauss rule
// (Piessens et al., QUADPACK), on [-1, 1]; index 0 is the centre.
const XGK: [f64; 8] = [
    0.000000000000000000000000000000000,
    0.207784955007898467600689403773245,
    0.405845151377397166906606412076961,
    0.586087235467691130294144845693013,
    0.741531185599394439863864773280788,
    0.864864423359769072789712788640926,
    0.949107912342758524526189684047851,
    0.991455371120812639206854697526329,
];
const WGK: [f64; 8] = [
    0.209482141084727828012999174891714,
    0.204432940075298892414161999234649,
    0.190350578064785409913256402421014,
    0.169004726639267902826583426598550,
    0.140653259715525918745189590510238,
    0.104790010322250183839876322541518,
    0.063092092629978553290700663189204,
    0.022935322010529224963732008058970,
];
// Gauss weights for the nodes XGK[0], XGK[2], XGK[4], XGK[6].
const WG: [f64; 4] = [
    0.417959183673469387755102040816327,
    0.381830050505118944950369775488975,
    0.279705391489276667901467771423780,
    0.129484966168869693270611432679082,
];

/// One G7-K15 panel: (Kronrod estimate, error estimate).
///
/// The error estimate is QUADPACK's: `|K - G|` scaled by `(200 |K - G| / resasc)^1.5`, which
/// tracks the real error of the 15-point rule on smooth integrands instead of the far larger
/// error of the 7-point one; without it the adaptive loop refines panels that are already
/// exact and costs ten times the evaluations.
fn panel<F: Fn(f64) -> f64>(f: &F, a: f64, b: f64) -> (f64, f64) {
    let c = 0.5 * (a + b);
    let h = 0.5 * (b - a);
    let fc = f(c);
    let mut k = WGK[0] * fc;
    let mut g = WG[0] * fc;
    let mut values = [(0.0, 0.0); 8];
    for i in 1..8 {
        let dx = h * XGK[i];
        let (f1, f2) = (f(c - dx), f(c + dx));
        values[i] = (f1, f2);
        k += WGK[i] * (f1 + f2);
        if i % 2 == 0 {
            g += WG[i / 2] * (f1 + f2);
        }
    }
    let mean = 0.5 * k;
    let mut asc = WGK[0] * (fc - mean).abs();
    let mut abs_sum = WGK[0] * fc.abs();
    for i in 1..8 {
        let (f1, f2) = values[i];
        asc += WGK[i] * ((f1 - mean).abs() + (f2 - mean).abs());
        abs_sum += WGK[i] * (f1.abs() + f2.abs());
    }
    let h_abs = h.abs();
    let (asc, abs_sum) = (asc * h_abs, abs_sum * h_abs);
    let mut err = ((k - g) * h).abs();
    if asc != 0.0 && err != 0.0 {
        err = asc * (200.0 * err / asc).powf(1.5).min(1.0);
    }
    // Below this the estimate is rounding, not truncation.
    err = err.max(50.0 * f64::EPSILON * abs_sum);
    (k * h, err)
}

/// The integral of `f` over `[a, b]` to relative tolerance `rel` (absolute floor `abs`),
/// with at most `max_panels` panels. Returns the estimate and its error estimate.
///
/// ```
/// let (v, _) = ckpt::model::quadrature::integrate(|x: f64| x.exp(), 0.0, 1.0, 1e-13, 0.0, 100);
/// assert!((v - (1f64.exp() - 1.0)).abs() < 1e-13);
/// ```
pub fn integrate<F: Fn(f64) -> f64>(
    f: F,
    a: f64,
    b: f64,
    rel: f64,
    abs: f64,
    max_panels: usize,
) -> (f64, f64) {
    if !(b > a) {
        return (0.0, 0.0);
    }
    let (v, e) = panel(&f, a, b);
    let mut panels = vec![(a, b, v, e)];
    let mut total = v;
    let mut err = e;
    while err > abs.max(rel * total.abs()) && panels.len() < max_panels {
        let (i, _) =
            panels.iter().enumerate().fold(
                (0, -1.0),
                |best, (i, p)| if p.3 > best.1 { (i, p.3) } else { best },
            );
        let (pa, pb, pv, pe) = panels.swap_remove(i);
        let mid = 0.5 * (pa + pb);
        if !(mid > pa && mid < pb) {
            // The panel is as small as floating point allows: keep it and stop refining it.
            panels.push((pa, pb, pv, 0.0));
            err -= pe;
            continue;
        }
        let (lv, le) = panel(&f, pa, mid);
        let (rv, re) = panel(&f, mid, pb);
        total += lv + rv - pv;
        err += le + re - pe;
        panels.push((pa, mid, lv, le));
        panels.push((mid, pb, rv, re));
    }
    // Re-sum in panel order so rounding does not depend on the refinement history.
    panels.sort_by(|x, y| x.0.total_cmp(&y.0));
    let total: f64 = panels.iter().map(|p| p.2).sum();
    let err: f64 = panels.iter().map(|p| p.3).sum();
    (total, err)
}

/// Tanh-sinh (double-exponential) quadrature of `f` over `[a, b]` to relative tolerance `rel`.
///
/// Converges exponentially even where `f` has an algebraic singularity at an end point, such as
/// `1 - S(t) ~ t^(k r)` of a Weibull lifetime with shape `k < 1`, on which Gauss-Kronrod needs
/// dozens of panels. `f` is never evaluated at the end points themselves.
///
/// ```
/// let (v, _) = ckpt::model::quadrature::tanh_sinh(|x: f64| x.powf(0.7), 0.0, 1.0, 1e-13);
/// assert!((v - 1.0 / 1.7).abs() < 1e-13);
/// ```
pub fn tanh_sinh<F: Fn(f64) -> f64>(f: F, a: f64, b: f64, rel: f64) -> (f64, f64) {
    if !(b > a) {
        return (0.0, 0.0);
    }
    let half_pi = std::f64::consts::FRAC_PI_2;
    let width = b - a;
    // Nodes as distances from each end, so points next to an end point keep every digit.
    let term = |t: f64| -> f64 {
        let u = half_pi * t.sinh();
        let e = (-2.0 * u.abs()).exp();
        let near = width * e / (1.0 + e);
        let w = width * half_pi * t.cosh() * 2.0 * e / ((1.0 + e) * (1.0 + e));
        if w == 0.0 || near == 0.0 {
            return 0.0;
        }
        let x = if u < 0.0 { a + near } else { b - near };
        w * f(x)
    };
    const T_MAX: f64 = 3.2;
    let mut h = 0.5;
    let mut sum = term(0.0);
    let mut k = 1;
    while (k as f64) * h <= T_MAX {
        let t = k as f64 * h;
        sum += term(t) + term(-t);
        k += 1;
    }
    let mut estimate = h * sum;
    let mut err = f64::INFINITY;
    for _ in 0..8 {
        h *= 0.5;
        let mut k = 1;
        while (k as f64) * h <= T_MAX {
            let t = k as f64 * h;
            sum += term(t) + term(-t);
            k += 2;
        }
        let next = h * sum;
        err = (next - estimate).abs();
        estimate = next;
        // The error after a halving is about the square of the relative change.
        if err <= rel.sqrt() * 1e-2 * estimate.abs() || err == 0.0 {
            break;
        }
    }
    (estimate, err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tanh_sinh_handles_end_point_singularities() {
        for (alpha, expected) in [
            (0.7, 1.0 / 1.7),
            (1.4, 1.0 / 2.4),
            (0.05, 1.0 / 1.05),
            (3.0, 0.25),
        ] {
            let (v, _) = tanh_sinh(|x: f64| x.powf(alpha), 0.0, 1.0, 1e-12);
            assert!((v - expected).abs() < 1e-12 * expected, "{alpha}: {v}");
        }
        let (v, _) = tanh_sinh(|x: f64| x.exp(), 0.0, 2.0, 1e-12);
        assert!((v - 2f64.exp_m1()).abs() < 1e-12 * v);
    }

    #[test]
    fn polynomials_are_exact_on_one_panel() {
        let (v, _) = integrate(|x| x.powi(20), 0.0, 1.0, 1e-15, 0.0, 1);
        assert!((v - 1.0 / 21.0).abs() < 1e-16);
    }

    #[test]
    fn sharp_features_are_refined() {
        // A steep logistic step: integral of 1/(1+e^(-200(x-0.3))) over [0, 1].
        let f = |x: f64| 1.0 / (1.0 + (-200.0 * (x - 0.3)).exp());
        let exact = 0.7 + ((-140f64).exp().ln_1p() - (-60f64).exp().ln_1p()) / 200.0;
        let (v, _) = integrate(f, 0.0, 1.0, 1e-13, 0.0, 500);
        assert!((v - exact).abs() < 1e-12, "{v} vs {exact}");
    }
}
