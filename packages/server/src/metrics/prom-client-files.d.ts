// prom-client's classes from their own files (issue 37). Its index (`prom-client`) also loads the
// Pushgateway, which requires `node:https` (and with it `tls`) and `zlib`, and the cluster
// aggregator: a start would load them for nothing. Its package has no `exports`, so these files
// are reachable; their types are the index's.
declare module 'prom-client/lib/registry.js' {
  import { Registry } from 'prom-client';
  export default Registry;
}
declare module 'prom-client/lib/counter.js' {
  import { Counter } from 'prom-client';
  export default Counter;
}
declare module 'prom-client/lib/gauge.js' {
  import { Gauge } from 'prom-client';
  export default Gauge;
}
declare module 'prom-client/lib/histogram.js' {
  import { Histogram } from 'prom-client';
  export default Histogram;
}
// One of the default metrics (`collectDefaultMetrics` registers them all, loading `perf_hooks` and
// `v8` as it loads): registers its metric in `registry`.
declare module 'prom-client/lib/metrics/*' {
  import type {
    DefaultMetricsCollectorConfiguration,
    PrometheusContentType,
    Registry,
  } from 'prom-client';

  const register: (
    registry: Registry,
    config: DefaultMetricsCollectorConfiguration<PrometheusContentType>,
  ) => void;
  export default register;
}
