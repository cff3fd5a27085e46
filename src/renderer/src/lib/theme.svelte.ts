// The current colour scheme (follows prefers-color-scheme) and the CSS colours canvas drawing needs.
class Theme {
  dark = $state(false);

  constructor() {
    const query = window.matchMedia('(prefers-color-scheme: dark)');
    this.dark = query.matches;
    query.addEventListener('change', (event) => (this.dark = event.matches));
  }

  /** A CSS custom property's value, e.g. color('--control'); read after the scheme has applied. */
  color(name: string): string {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  }
}

export const theme = new Theme();
