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
/** Points per panel when building a CDF table. */
const GL_TABLE = gaussLegendre(3);

/**
 * The window in log space, in standard deviations of log p around its mean. The left tail is the long one
 * (log of a small rate): with alpha >= 1 its mass beyond 16 sd is below 1e-7; the right tail is bounded by 0.
 */
const LEFT_SD = 16;
const RIGHT_SD = 10;
/** Table step in sd of log p: cubic Hermite error ~ (step)^4/384 * |h'''|, about 1e-6 of probability at 1/5. */
const TABLE_STEPS_PER_SD = 5;
/** Panels of the side integrated over (6 Gauss–Legendre points each). */
const NODE_PANELS = 13;

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
function logDensityFn(p: BetaPosterior): (u: number) => number {
  const { alpha, beta } = p;
  const norm = betaln(alpha, beta);
  // beta = 1 would make 0 * log(0) = NaN at u = 0; the factor is 1 then.
  if (beta === 1) return (u) => Math.exp(alpha * u - norm);
  return (u) => Math.exp(alpha * u + (beta - 1) * log1mexp(u) - norm);
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
  /** ∫_from^to f(u) density(u) du by composite Gauss–Legendre on fresh nodes (for integrands with a corner). */
  integrate(from: number, to: number, f: (u: number) => number): number;
  below(u: number): number;
  above(u: number): number;
};

function windowOf(mean: number, sd: number): { lo: number; hi: number } {
  const hi = Math.min(0, mean + RIGHT_SD * sd);
  const lo = Math.min(mean - LEFT_SD * sd, hi - 1e-300);
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
  const density = logDensityFn(posterior);
  const { lo, hi } = windowOf(logMean, logSd);

  // Nodes: composite Gauss–Legendre over the window, weights normalised to total mass 1.
  const nodeCount = NODE_PANELS * GL_NODES.nodes.length;
  const nodes = new Float64Array(nodeCount);
  const weights = new Float64Array(nodeCount);
  const nodeWidth = (hi - lo) / NODE_PANELS;
  let mass = 0;
  for (let panel = 0, k = 0; panel < NODE_PANELS; panel++) {
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

  // Tables at panel edges: density, CDF, and the two partial integrals.
  const panels = Math.max(8, Math.ceil(((hi - lo) / logSd) * TABLE_STEPS_PER_SD));
  const step = (hi - lo) / panels;
  const dens = new Float64Array(panels + 1);
  const cdf = new Float64Array(panels + 1);
  for (let i = 0; i <= panels; i++) dens[i] = density(lo + i * step);
  for (let i = 0; i < panels; i++) {
    const centre = lo + (i + 0.5) * step;
    let area = 0;
    for (let j = 0; j < GL_TABLE.nodes.length; j++) {
      area += (GL_TABLE.weights[j] ?? 0) * density(centre + 0.5 * step * (GL_TABLE.nodes[j] ?? 0));
    }
    cdf[i + 1] = (cdf[i] ?? 0) + 0.5 * step * area;
  }
  // The tails outside the window hold < 1e-7: normalise so the table ends at exactly 1.
  const total = cdf[panels] ?? 1;
  for (let i = 0; i <= panels; i++) {
    cdf[i] = (cdf[i] ?? 0) / total;
    dens[i] = (dens[i] ?? 0) / total;
  }
  const readCdf = (i: number, t: number): number =>
    hermite(t, cdf[i] ?? 0, cdf[i + 1] ?? 1, (dens[i] ?? 0) * step, (dens[i + 1] ?? 0) * step);

  // below: ∫ cdf(v) e^v dv from lo, by 3-point Gauss–Legendre per panel on the interpolated CDF.
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
  const aboveTotal = aboveInside[panels] ?? 0;
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
    integrate(from, to, f) {
      const a = Math.max(from, lo);
      const b = Math.min(to, hi);
      if (!(b > a)) return 0;
      const width = (b - a) / NODE_PANELS;
      let sum = 0;
      for (let panel = 0; panel < NODE_PANELS; panel++) {
        const centre = a + (panel + 0.5) * width;
        for (let j = 0; j < GL_NODES.nodes.length; j++) {
          const u = centre + 0.5 * width * (GL_NODES.nodes[j] ?? 0);
          sum += 0.5 * width * (GL_NODES.weights[j] ?? 0) * density(u) * f(u);
        }
      }
      return sum / mass;
    },
    below(u) {
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
