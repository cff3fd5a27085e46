// How the client report writes numbers: thousands separators, percentages with a sign, money in the
// store's currency when it is known (the API states none, so unlabelled), dates, in the chosen locale.

export type ReportFormat = {
  locale: string;
  int(n: number): string;
  /** A fraction as a percent: 0.0312 → "3.12%". */
  rate(x: number, digits?: number): string;
  /** A fraction as a signed percent: 0.124 → "+12.4%". */
  lift(x: number): string;
  probability(p: number): string;
  money(n: number): string;
  /** 'YYYY-MM-DD' or an ISO timestamp as a date. */
  date(value: string): string;
  dateTime(value: string): string;
};

export function reportFormat(locale: string | undefined, currency: string | null = null): ReportFormat {
  const chosen = validLocale(locale);
  const int = new Intl.NumberFormat(chosen, { maximumFractionDigits: 0 });
  const percent = (digits: number) => new Intl.NumberFormat(chosen, { style: 'percent', minimumFractionDigits: digits, maximumFractionDigits: digits });
  const signed = new Intl.NumberFormat(chosen, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1, signDisplay: 'exceptZero' });
  const money = currency
    ? new Intl.NumberFormat(chosen, { style: 'currency', currency })
    : new Intl.NumberFormat(chosen, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const date = new Intl.DateTimeFormat(chosen, { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
  const dateTime = new Intl.DateTimeFormat(chosen, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC', timeZoneName: 'short' });
  const parse = (value: string) => new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  return {
    locale: chosen,
    int: (n) => int.format(n),
    rate: (x, digits = 2) => percent(digits).format(x),
    lift: (x) => signed.format(x).replace('-', '−'),
    probability: (p) => (p > 0.999 && p < 1 ? `>${percent(1).format(0.999)}` : p < 0.001 && p > 0 ? `<${percent(1).format(0.001)}` : percent(1).format(p)),
    money: (n) => money.format(n),
    date: (value) => {
      const d = parse(value);
      return Number.isNaN(d.getTime()) ? value : date.format(d);
    },
    dateTime: (value) => {
      const d = parse(value);
      return Number.isNaN(d.getTime()) ? value : dateTime.format(d);
    },
  };
}

/** The locale if Intl knows it, else the system's. */
function validLocale(locale: string | undefined): string {
  if (locale) {
    try {
      const [supported] = Intl.NumberFormat.supportedLocalesOf([locale]);
      if (supported) return supported;
    } catch {
      // fall through to the system's
    }
  }
  return Intl.NumberFormat().resolvedOptions().locale;
}
