// Loaded into each benchmarked service with `--import` (lib.ts startService): sends the service's heap
// use to the benchmark over the IPC channel every 250 ms, so the report gives heap beside RSS. It never
// keeps the service alive: the channel and the timer are unreferenced.
if (process.send) {
  process.channel?.unref();
  setInterval(() => {
    process.send?.({ heapUsed: process.memoryUsage().heapUsed });
  }, 250).unref();
}
