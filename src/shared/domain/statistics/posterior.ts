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
/**
 * From alpha = 1000 on (every side on the quadrature path of probability.ts) log p is normal to a skew of
 * -2/sqrt(alpha) < 0.07: 8 sd left and 7 right leave < 1e-11 outside, and 6 panels of nodes suffice. The
 * smaller window and node set cut the cost of a large test by a fifth (bench/statistics.bench.ts).
 */
const LARGE_ALPHA = 1000;
const LEFT_SD_LARGE = 8;
const RIGHT_SD_LARGE = 7;
const NODE_PANELS_LARGE = 6;
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
  const large = p.alpha >= LARGE_ALPHA && p.beta >= LARGE_ALPHA;
  const left = p.alpha < NEAR_NORMAL_ALPHA ? LEFT_SD_SKEWED : large ? LEFT_SD_LARGE : LEFT_SD_NEAR_NORMAL;
  const hi = Math.min(0, mean + (large ? RIGHT_SD_LARGE : RIGHT_SD) * sd);
  const lo = Math.min(mean - left * sd, hi - 1e-300);
  return { lo, hi };
}

/** Cubic Hermite on [0, 1] from end values and end slopes (already scaled by the step). */
function hermite(t: number, y0: number, y1: number, m0: number, m1: number): number {
  const t2 = t * t;
  const t3 = t2 * t;
  return (2 * t3 - 3 * t2 + 1) * y0 + (t3 - 2 * t2 + t) * m0 + (-2 * t3 + 3 * t2) * y1 + (t3 - t2) * m1;
}

const EMPTY = new Float64Array(0);

/**
 * One side's log posterior. A class, not closures: V8 keeps its fields in fixed slots and its reads
 * allocate nothing, which matters at ~10^6 reads per 10,000 tests (bench/statistics.bench.ts).
 * The nodes, the CDF table and the partial-expectation tables are each built on first use: a comparison
 * integrates over the narrower side's nodes against the wider side's table, so a side usually needs one.
 */
class LogPosteriorTables implements LogPosterior {
  readonly posterior: BetaPosterior;
  readonly mean: number;
  readonly logMean: number;
  readonly logSd: number;
  private readonly alpha: number;
  private readonly betaMinus1: number;
  private readonly norm: number;
  private readonly lo: number;
  private readonly hi: number;
  private readonly nodePanels: number;
  private readonly panels: number;
  private readonly step: number;
  private readonly expStep: number;
  // Empty until built (the flags say when): plain typed-array fields keep every read allocation-free.
  private nodesBuilt = false;
  private nodeArray = EMPTY;
  private weightArray = EMPTY;
  private mass = 1;
  private tableBuilt = false;
  private dens = EMPTY;
  private cdfs = EMPTY;
  private total = 1;
  private partialsBuilt = false;
  private belowTable = EMPTY;
  private aboveInside = EMPTY;
  private aboveTotal = 0;

  constructor(posterior: BetaPosterior) {
    this.posterior = posterior;
    this.mean = posteriorMean(posterior);
    const { mean, sd } = logMoments(posterior);
    this.logMean = mean;
    this.logSd = sd;
    this.alpha = posterior.alpha;
    this.betaMinus1 = posterior.beta - 1;
    this.norm = betaln(posterior.alpha, posterior.beta);
    const { lo, hi } = windowOf(posterior, mean, sd);
    this.lo = lo;
    this.hi = hi;
    this.nodePanels =
      posterior.alpha < NEAR_NORMAL_ALPHA
        ? NODE_PANELS_SKEWED
        : posterior.alpha >= LARGE_ALPHA && posterior.beta >= LARGE_ALPHA
          ? NODE_PANELS_LARGE
          : NODE_PANELS_NEAR_NORMAL;
    this.panels = Math.max(8, Math.ceil(((hi - lo) / sd) * TABLE_STEPS_PER_SD));
    this.step = (hi - lo) / this.panels;
    this.expStep = Math.exp(this.step);
  }

  /** Density of u = log p: Beta density at e^u times the Jacobian e^u (unnormalised by the table's total). */
  private rawDensity(u: number): number {
    if (u >= 0) return this.betaMinus1 === 0 && u === 0 ? Math.exp(-this.norm) : 0;
    // beta = 1 would make 0 * log(0) = NaN at u = 0; the factor is 1 then.
    if (this.betaMinus1 === 0) return Math.exp(this.alpha * u - this.norm);
    return Math.exp(this.alpha * u + this.betaMinus1 * log1mexp(u) - this.norm);
  }

  /** The same with e^u known: log(1 - e^u) straight from it, except near u = 0 where log1mexp avoids cancellation. */
  private rawDensityAt(u: number, eu: number): number {
    if (u >= 0) return this.betaMinus1 === 0 && u === 0 ? Math.exp(-this.norm) : 0;
    if (this.betaMinus1 === 0) return Math.exp(this.alpha * u - this.norm);
    const log1m = u > -Math.LN2 ? log1mexp(u) : Math.log1p(-eu);
    return Math.exp(this.alpha * u + this.betaMinus1 * log1m - this.norm);
  }

  /** Composite Gauss–Legendre over the window, weights normalised to total mass 1. */
  private buildNodes(): void {
    const { lo, hi, nodePanels } = this;
    const count = nodePanels * GL_NODES.nodes.length;
    const nodes = new Float64Array(count);
    const weights = new Float64Array(count);
    const width = (hi - lo) / nodePanels;
    let mass = 0;
    for (let panel = 0, k = 0; panel < nodePanels; panel++) {
      const centre = lo + (panel + 0.5) * width;
      for (let j = 0; j < GL_NODES.nodes.length; j++, k++) {
        const u = centre + 0.5 * width * (GL_NODES.nodes[j] ?? 0);
        const w = 0.5 * width * (GL_NODES.weights[j] ?? 0) * this.rawDensity(u);
        nodes[k] = u;
        weights[k] = w;
        mass += w;
      }
    }
    for (let k = 0; k < count; k++) weights[k] = (weights[k] ?? 0) / mass;
    this.nodeArray = nodes;
    this.weightArray = weights;
    this.mass = mass;
    this.nodesBuilt = true;
  }

  get nodes(): Float64Array {
    if (!this.nodesBuilt) this.buildNodes();
    return this.nodeArray;
  }

  get weights(): Float64Array {
    if (!this.nodesBuilt) this.buildNodes();
    return this.weightArray;
  }

  /** Density and CDF at the panel edges (Simpson's rule on edge and midpoint densities), normalised. */
  private buildTable(): void {
    const { lo, panels, step } = this;
    const dens = new Float64Array(panels + 1);
    const cdf = new Float64Array(panels + 1);
    const mids = new Float64Array(panels);
    // On an even grid e^u is geometric: one multiplication instead of an exp() per point.
    const halfRatio = Math.exp(step / 2);
    let ex = Math.exp(lo);
    for (let i = 0; i <= panels; i++) {
      dens[i] = this.rawDensityAt(lo + i * step, ex);
      ex *= halfRatio;
      if (i < panels) mids[i] = this.rawDensityAt(lo + (i + 0.5) * step, ex);
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
    this.dens = dens;
    this.cdfs = cdf;
    this.total = total;
    this.tableBuilt = true;
  }

  /** The interpolated CDF in panel i at fraction t (the table must be built). */
  private readCdf(i: number, t: number): number {
    const { cdfs: cdf, dens, step } = this;
    return hermite(t, cdf[i] ?? 0, cdf[i + 1] ?? 1, (dens[i] ?? 0) * step, (dens[i + 1] ?? 0) * step);
  }

  /**
   * Partial expectations for the expected loss (the exact path never needs them): below = ∫ cdf(v) e^v dv
   * from lo, aboveInside = ∫ (1 - cdf(v)) e^v dv from lo, by 3-point Gauss–Legendre per panel on the
   * interpolated CDF. above(u) = ∫_u^hi (1 - cdf) e^v dv: beyond hi the CDF is 1 and adds nothing.
   */
  private buildPartials(): void {
    if (!this.tableBuilt) this.buildTable();
    const { lo, panels, step } = this;
    const below = new Float64Array(panels + 1);
    const aboveInside = new Float64Array(panels + 1);
    // e^v at each panel's Gauss points is geometric in the panel index: one multiplication per point.
    const points = GL_TABLE.nodes.length;
    const ts = new Float64Array(points);
    const evs = new Float64Array(points);
    for (let j = 0; j < points; j++) {
      ts[j] = 0.5 + 0.5 * (GL_TABLE.nodes[j] ?? 0);
      evs[j] = Math.exp(lo + (ts[j] ?? 0) * step);
    }
    for (let i = 0; i < panels; i++) {
      let areaBelow = 0;
      let areaAbove = 0;
      for (let j = 0; j < points; j++) {
        const ev = evs[j] ?? 0;
        const c = this.readCdf(i, ts[j] ?? 0);
        areaBelow += (GL_TABLE.weights[j] ?? 0) * c * ev;
        areaAbove += (GL_TABLE.weights[j] ?? 0) * (1 - c) * ev;
        evs[j] = ev * this.expStep;
      }
      below[i + 1] = (below[i] ?? 0) + 0.5 * step * areaBelow;
      aboveInside[i + 1] = (aboveInside[i] ?? 0) + 0.5 * step * areaAbove;
    }
    this.belowTable = below;
    this.aboveInside = aboveInside;
    this.aboveTotal = aboveInside[panels] ?? 0;
    this.partialsBuilt = true;
  }

  /** Panel index of u inside the window, or -1 outside it (then the caller reads 0 or 1). */
  private panelOf(u: number): number {
    if (u <= this.lo || u >= this.hi) return -1;
    return Math.min(this.panels - 1, Math.floor((u - this.lo) / this.step));
  }

  cdf(u: number): number {
    const i = this.panelOf(u);
    if (i < 0) return u <= this.lo ? 0 : 1;
    if (!this.tableBuilt) this.buildTable();
    return this.readCdf(i, (u - this.lo) / this.step - i);
  }

  density(u: number): number {
    if (this.panelOf(u) < 0) return 0;
    if (!this.tableBuilt) this.buildTable();
    return this.rawDensity(u) / this.total;
  }

  cdfSlope(u: number): number {
    const i = this.panelOf(u);
    if (i < 0) return 0;
    if (!this.tableBuilt) this.buildTable();
    const { cdfs: cdf, dens } = this;
    // Derivative of the cubic Hermite: cheap, and exact at the table's edges.
    const step = this.step;
    const t = (u - this.lo) / step - i;
    const y0 = cdf[i] ?? 0;
    const y1 = cdf[i + 1] ?? 1;
    const m0 = (dens[i] ?? 0) * step;
    const m1 = (dens[i + 1] ?? 0) * step;
    const t2 = t * t;
    return ((6 * t2 - 6 * t) * y0 + (3 * t2 - 4 * t + 1) * m0 + (-6 * t2 + 6 * t) * y1 + (3 * t2 - 2 * t) * m1) / step;
  }

  integrate(from: number, to: number, f: (u: number) => number): number {
    const a = Math.max(from, this.lo);
    const b = Math.min(to, this.hi);
    if (!(b > a)) return 0;
    if (!this.nodesBuilt) this.buildNodes();
    const width = (b - a) / this.nodePanels;
    let sum = 0;
    for (let panel = 0; panel < this.nodePanels; panel++) {
      const centre = a + (panel + 0.5) * width;
      for (let j = 0; j < GL_NODES.nodes.length; j++) {
        const u = centre + 0.5 * width * (GL_NODES.nodes[j] ?? 0);
        sum += 0.5 * width * (GL_NODES.weights[j] ?? 0) * this.rawDensity(u) * f(u);
      }
    }
    return sum / this.mass;
  }

  below(u: number): number {
    if (!this.partialsBuilt) this.buildPartials();
    const { belowTable: below, cdfs: cdf } = this;
    const i = this.panelOf(u);
    // Beyond the window the CDF is 1, so the integrand there is e^v.
    if (i < 0) return u <= this.lo ? 0 : (below[this.panels] ?? 0) + Math.exp(Math.min(u, 0)) - Math.exp(this.hi);
    const step = this.step;
    const e0 = Math.exp(this.lo + i * step);
    const e1 = e0 * this.expStep;
    const t = (u - this.lo) / step - i;
    return hermite(t, below[i] ?? 0, below[i + 1] ?? 0, (cdf[i] ?? 0) * e0 * step, (cdf[i + 1] ?? 1) * e1 * step);
  }

  above(u: number): number {
    if (!this.partialsBuilt) this.buildPartials();
    const { aboveInside, cdfs: cdf } = this;
    const i = this.panelOf(u);
    // Below the window the CDF is 0, so the integrand there is e^v.
    if (i < 0) return u >= this.hi ? 0 : this.aboveTotal + Math.exp(this.lo) - Math.exp(u);
    const step = this.step;
    const e0 = Math.exp(this.lo + i * step);
    const e1 = e0 * this.expStep;
    const t = (u - this.lo) / step - i;
    const c0 = cdf[i] ?? 0;
    const c1 = cdf[i + 1] ?? 1;
    const inside = hermite(t, aboveInside[i] ?? 0, aboveInside[i + 1] ?? 0, (1 - c0) * e0 * step, (1 - c1) * e1 * step);
    return this.aboveTotal - inside;
  }
}

export function logPosterior(posterior: BetaPosterior): LogPosterior {
  return new LogPosteriorTables(posterior);
}
