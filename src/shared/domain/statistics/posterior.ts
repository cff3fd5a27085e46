// Beta posteriors of a binary rate and their log-space quadrature tables, shared by probability.ts and interval.ts.
//
// Why log space: the lift interval is a quantile of log(pB) - log(pA), a difference of two independent
// variables, so its CDF is a one-dimensional integral of one side's density times the other side's CDF.
// Why tables: the regularized incomplete beta costs ~1-3 µs a call (measured with @stdlib), and a quantile
// search needs hundreds of CDF values; a table of the CDF built by Gauss–Legendre integration of the exact
// log-density, read back with cubic Hermite interpolation (the density is the exact derivative), costs
// a few hundred exp() once and ~10 ns a read. Accuracy against SciPy is pinned by test/statistics.
import betaln from '@stdlib/math-base-special-betaln';
import digamma from '@stdlib/math-base-special-digamma';
import trigamma from '@stdlib/math-base-special-trigamma';

/** Beta(alpha, beta) posterior of a rate after a uniform Beta(1, 1) prior. */
export type BetaPosterior = { alpha: number; beta: number };

/** The posterior after `successes` out of `trials` with a Beta(1, 1) prior. */
export function posteriorOf(successes: number, trials: number): BetaPosterior {
  if (!Number.isFinite(successes) || !Number.isFinite(trials) || successes < 0 || trials < successes) {
    throw new RangeError(`Not a binary count: ${successes} successes of ${trials} trials`);
  }
  return { alpha: successes + 1, beta: trials - successes + 1 };
}

export function posteriorMean(p: BetaPosterior): number {
  return p.alpha / (p.alpha + p.beta);
}

/** Nodes and weights of the n-point Gauss–Legendre rule on [-1, 1] (Newton on the Legendre polynomial). */
function gaussLegendre(n: number): { nodes: Float64Array; weights: Float64Array } {
  const nodes = new Float64Array(n);
  const weights = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let x = Math.cos((Math.PI * (i + 0.75)) / (n + 0.5));
    let derivative = 1;
    for (let iter = 0; iter < 100; iter++) {
      let p0 = 1;
      let p1 = x;
      for (let k = 2; k <= n; k++) {
        const p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      derivative = (n * (x * p1 - p0)) / (x * x - 1);
      const dx = p1 / derivative;
      x -= dx;
      if (Math.abs(dx) < 1e-15) break;
    }
    nodes[i] = x;
    weights[i] = 2 / ((1 - x * x) * derivative * derivative);
  }
  return { nodes, weights };
}

/** Points per panel of the side we integrate over; exact for polynomials of degree 11. */
const GL_NODES = gaussLegendre(6);
/** Points per panel for the partial-expectation tables (expected loss). */
const GL_TABLE = gaussLegendre(3);

/**
 * The window in log space, in standard deviations of log p around its mean. The left tail is the long one
 * (log of a small rate): it decays like e^{alpha·u}, so with alpha = 1 its mass beyond 16 sd is below 1e-7;
 * from alpha = 30 on, log p is close to normal and 10 sd leave < 1e-12. The right tail is light and
 * bounded by 0.
 */
const LEFT_SD_SKEWED = 16;
const LEFT_SD_NEAR_NORMAL = 10;
const NEAR_NORMAL_ALPHA = 30;
const RIGHT_SD = 8;
/** Table step in sd of log p: cubic Hermite error ~ step^4/384·|h'''|, a few 1e-6 of probability at 1/4. */
const TABLE_STEPS_PER_SD = 4;
/**
 * Panels of the side integrated over (6 Gauss–Legendre points each): 8 suffice for a near-normal
 * posterior; the skewed log of a rate with few successes needs 14 for ~1e-6 (8 leave 2.5e-4).
 */
const NODE_PANELS_NEAR_NORMAL = 8;
const NODE_PANELS_SKEWED = 14;

/** log(1 - e^u) for u < 0, accurate at both ends (Mächler 2012). */
function log1mexp(u: number): number {
  return u > -Math.LN2 ? Math.log(-Math.expm1(u)) : Math.log1p(-Math.exp(u));
}

/** Mean and standard deviation of log p for p ~ Beta(alpha, beta). */
function logMoments(p: BetaPosterior): { mean: number; sd: number } {
  return {
    mean: digamma(p.alpha) - digamma(p.alpha + p.beta),
    sd: Math.sqrt(trigamma(p.alpha) - trigamma(p.alpha + p.beta)),
  };
}

/** Density of u = log p: Beta density at e^u times the Jacobian e^u. */
function logDensityFn(p: BetaPosterior): { density: (u: number) => number; densityAt: (u: number, eu: number) => number } {
  const { alpha, beta } = p;
  const norm = betaln(alpha, beta);
  // beta = 1 would make 0 * log(0) = NaN at u = 0; the factor is 1 then.
  // Grid arithmetic can land a hair above u = 0, outside the support (log1mexp would be NaN there).
  if (beta === 1) {
    const density = (u: number) => (u > 0 ? 0 : Math.exp(alpha * u - norm));
    return { density, densityAt: density };
  }
  return {
    density: (u) => (u >= 0 ? 0 : Math.exp(alpha * u + (beta - 1) * log1mexp(u) - norm)),
    // With e^u known: log(1 - e^u) straight from it (log1p is accurate for small e^u; near u = 0 the
    // cancellation in 1 - e^u is what log1mexp avoids, so use it there).
    densityAt: (u, eu) =>
      u >= 0 ? 0 : Math.exp(alpha * u + (beta - 1) * (u > -Math.LN2 ? log1mexp(u) : Math.log1p(-eu)) - norm),
  };
}

/**
 * One side's posterior in log space: quadrature nodes (to integrate against it) and tables (to read its
 * CDF and partial integrals at any point).
 *   cdf(u)   = P(log p <= u)
 *   below(u) = ∫_{-∞}^{u} cdf(v) e^v dv = E[(e^u - p)+]   (a positive integrand: no cancellation)
 *   above(u) = ∫_{u}^{0} (1 - cdf(v)) e^v dv = E[(p - e^u)+]
 */
export type LogPosterior = {
  readonly posterior: BetaPosterior;
  readonly mean: number;
  readonly logMean: number;
  readonly logSd: number;
  /** Nodes in log space and weights that integrate the posterior's density (weights sum to 1). */
  readonly nodes: Float64Array;
  readonly weights: Float64Array;
  cdf(u: number): number;
  density(u: number): number;
  /** The derivative of the interpolated CDF: the density to ~1e-4, at the cost of a polynomial. */
  cdfSlope(u: number): number;
  /** ∫_from^to f(u) density(u) du by composite Gauss–Legendre on fresh nodes (for integrands with a corner). */
  integrate(from: number, to: number, f: (u: number) => number): number;
  below(u: number): number;
  above(u: number): number;
};

function windowOf(p: BetaPosterior, mean: number, sd: number): { lo: number; hi: number } {
  const left = p.alpha < NEAR_NORMAL_ALPHA ? LEFT_SD_SKEWED : LEFT_SD_NEAR_NORMAL;
  const hi = Math.min(0, mean + RIGHT_SD * sd);
  const lo = Math.min(mean - left * sd, hi - 1e-300);
  return { lo, hi };
}

/** Cubic Hermite on [0, 1] from end values and end slopes (already scaled by the step). */
function hermite(t: number, y0: number, y1: number, m0: number, m1: number): number {
  const t2 = t * t;
  const t3 = t2 * t;
  return (2 * t3 - 3 * t2 + 1) * y0 + (t3 - 2 * t2 + t) * m0 + (-2 * t3 + 3 * t2) * y1 + (t3 - t2) * m1;
}

export function logPosterior(posterior: BetaPosterior): LogPosterior {
  const { mean: logMean, sd: logSd } = logMoments(posterior);
  const { density, densityAt } = logDensityFn(posterior);
  const { lo, hi } = windowOf(posterior, logMean, logSd);

  // Nodes: composite Gauss–Legendre over the window, weights normalised to total mass 1.
  const nodePanels = posterior.alpha < NEAR_NORMAL_ALPHA ? NODE_PANELS_SKEWED : NODE_PANELS_NEAR_NORMAL;
  const nodeCount = nodePanels * GL_NODES.nodes.length;
  const nodes = new Float64Array(nodeCount);
  const weights = new Float64Array(nodeCount);
  const nodeWidth = (hi - lo) / nodePanels;
  let mass = 0;
  for (let panel = 0, k = 0; panel < nodePanels; panel++) {
    const centre = lo + (panel + 0.5) * nodeWidth;
    for (let j = 0; j < GL_NODES.nodes.length; j++, k++) {
      const u = centre + 0.5 * nodeWidth * (GL_NODES.nodes[j] ?? 0);
      const w = 0.5 * nodeWidth * (GL_NODES.weights[j] ?? 0) * density(u);
      nodes[k] = u;
      weights[k] = w;
      mass += w;
    }
  }
  for (let k = 0; k < nodeCount; k++) weights[k] = (weights[k] ?? 0) / mass;

  // Tables at panel edges: density and CDF (Simpson's rule on edge and midpoint densities).
  const panels = Math.max(8, Math.ceil(((hi - lo) / logSd) * TABLE_STEPS_PER_SD));
  const step = (hi - lo) / panels;
  const dens = new Float64Array(panels + 1);
  const cdf = new Float64Array(panels + 1);
  // On an even grid e^u is geometric: one multiplication instead of an exp() per point.
  const halfRatio = Math.exp(step / 2);
  let ex = Math.exp(lo);
  const mids = new Float64Array(panels);
  for (let i = 0; i <= panels; i++) {
    dens[i] = densityAt(lo + i * step, ex);
    ex *= halfRatio;
    if (i < panels) mids[i] = densityAt(lo + (i + 0.5) * step, ex);
    ex *= halfRatio;
  }
  for (let i = 0; i < panels; i++) {
    cdf[i + 1] = (cdf[i] ?? 0) + (step / 6) * ((dens[i] ?? 0) + 4 * (mids[i] ?? 0) + (dens[i + 1] ?? 0));
  }
  // The tails outside the window hold < 1e-7: normalise so the table ends at exactly 1.
  const total = cdf[panels] ?? 1;
  for (let i = 0; i <= panels; i++) {
    cdf[i] = (cdf[i] ?? 0) / total;
    dens[i] = (dens[i] ?? 0) / total;
  }
  const readCdf = (i: number, t: number): number =>
    hermite(t, cdf[i] ?? 0, cdf[i + 1] ?? 1, (dens[i] ?? 0) * step, (dens[i + 1] ?? 0) * step);

  // Partial expectations for the expected loss, built on first use (the exact path never needs them):
  // below = ∫ cdf(v) e^v dv from lo, aboveInside = ∫ (1 - cdf(v)) e^v dv from lo, by 3-point
  // Gauss–Legendre per panel on the interpolated CDF.
  let partials: { below: Float64Array; aboveInside: Float64Array; aboveTotal: number } | null = null;
  function partialTables(): { below: Float64Array; aboveInside: Float64Array; aboveTotal: number } {
    if (partials !== null) return partials;
    const below = new Float64Array(panels + 1);
    const aboveInside = new Float64Array(panels + 1);
    for (let i = 0; i < panels; i++) {
      const left = lo + i * step;
      let areaBelow = 0;
      let areaAbove = 0;
      for (let j = 0; j < GL_TABLE.nodes.length; j++) {
        const t = 0.5 + 0.5 * (GL_TABLE.nodes[j] ?? 0);
        const ev = Math.exp(left + t * step);
        const c = readCdf(i, t);
        areaBelow += (GL_TABLE.weights[j] ?? 0) * c * ev;
        areaAbove += (GL_TABLE.weights[j] ?? 0) * (1 - c) * ev;
      }
      below[i + 1] = (below[i] ?? 0) + 0.5 * step * areaBelow;
      aboveInside[i + 1] = (aboveInside[i] ?? 0) + 0.5 * step * areaAbove;
    }
    // above(u) = ∫_u^hi (1 - cdf) e^v dv: beyond hi the CDF is 1 and adds nothing.
    partials = { below, aboveInside, aboveTotal: aboveInside[panels] ?? 0 };
    return partials;
  }
  const mean = posteriorMean(posterior);

  function locate(u: number): { i: number; t: number } | null {
    if (u <= lo || u >= hi) return null;
    const x = (u - lo) / step;
    const i = Math.min(panels - 1, Math.floor(x));
    return { i, t: x - i };
  }

  return {
    posterior,
    mean,
    logMean,
    logSd,
    nodes,
    weights,
    cdf(u) {
      const at = locate(u);
      if (at === null) return u <= lo ? 0 : 1;
      return readCdf(at.i, at.t);
    },
    density(u) {
      const at = locate(u);
      if (at === null) return 0;
      return density(u) / total;
    },
    cdfSlope(u) {
      const at = locate(u);
      if (at === null) return 0;
      // Derivative of the cubic Hermite: cheap, and exact at the table's edges.
      const { i, t } = at;
      const y0 = cdf[i] ?? 0;
      const y1 = cdf[i + 1] ?? 1;
      const m0 = (dens[i] ?? 0) * step;
      const m1 = (dens[i + 1] ?? 0) * step;
      const t2 = t * t;
      return ((6 * t2 - 6 * t) * y0 + (3 * t2 - 4 * t + 1) * m0 + (-6 * t2 + 6 * t) * y1 + (3 * t2 - 2 * t) * m1) / step;
    },
    integrate(from, to, f) {
      const a = Math.max(from, lo);
      const b = Math.min(to, hi);
      if (!(b > a)) return 0;
      const width = (b - a) / nodePanels;
      let sum = 0;
      for (let panel = 0; panel < nodePanels; panel++) {
        const centre = a + (panel + 0.5) * width;
        for (let j = 0; j < GL_NODES.nodes.length; j++) {
          const u = centre + 0.5 * width * (GL_NODES.nodes[j] ?? 0);
          sum += 0.5 * width * (GL_NODES.weights[j] ?? 0) * density(u) * f(u);
        }
      }
      return sum / mass;
    },
    below(u) {
      const { below } = partialTables();
      const at = locate(u);
      // Beyond the window the CDF is 1, so the integrand there is e^v.
      if (at === null) return u <= lo ? 0 : (below[panels] ?? 0) + Math.exp(Math.min(u, 0)) - Math.exp(hi);
      const c0 = cdf[at.i] ?? 0;
      const c1 = cdf[at.i + 1] ?? 1;
      const e0 = Math.exp(lo + at.i * step);
      const e1 = Math.exp(lo + (at.i + 1) * step);
      return hermite(at.t, below[at.i] ?? 0, below[at.i + 1] ?? 0, c0 * e0 * step, c1 * e1 * step);
    },
    above(u) {
      const { aboveInside, aboveTotal } = partialTables();
      const at = locate(u);
      // Below the window the CDF is 0, so the integrand there is e^v.
      if (at === null) return u >= hi ? 0 : aboveTotal + Math.exp(lo) - Math.exp(u);
      const c0 = cdf[at.i] ?? 0;
      const c1 = cdf[at.i + 1] ?? 1;
      const e0 = Math.exp(lo + at.i * step);
      const e1 = Math.exp(lo + (at.i + 1) * step);
      const inside = hermite(at.t, aboveInside[at.i] ?? 0, aboveInside[at.i + 1] ?? 0, (1 - c0) * e0 * step, (1 - c1) * e1 * step);
      return aboveTotal - inside;
    },
  };
}
