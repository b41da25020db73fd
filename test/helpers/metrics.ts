// Reading an app's Prometheus metrics over HTTP, for tests that compare a series before and after.

/** GET /metrics with the app's METRICS_TOKEN; throws unless it answers 200. */
export async function scrapeMetrics(url: string, token: string): Promise<string> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  return res.text();
}

/** The value of one series (exact label set, in prom-client's order), or 0 when it is not there yet. */
export function seriesValue(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}
