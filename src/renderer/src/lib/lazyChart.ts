// Every chart's mount: its module (and chart.js with it) loads with the first chart, not at start-up,
// and the chart is drawn unless the data or the theme changed meanwhile; the returned function destroys it.
type Drawn = { destroy(): void };

/** `load` resolves to a function that draws the chart; call the result from an $effect's cleanup. */
export function drawLazily(load: () => Promise<() => Drawn>): () => void {
  let chart: Drawn | null = null;
  let stale = false;
  void load().then((draw) => {
    if (!stale) chart = draw();
  });
  return () => {
    stale = true;
    chart?.destroy();
  };
}
