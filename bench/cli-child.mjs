// Runs dist/cli.js unchanged (argv as given to this script) in a child of the benchmark, and stops it
// with SIGTERM when the benchmark's IPC channel closes, so that it cannot outlive a killed benchmark.
// BENCH_DIST: another build to run instead of dist/ (as bench/exporter.mjs).
process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
await import(process.env.BENCH_DIST ? `file://${process.env.BENCH_DIST}/cli.js` : '../dist/cli.js');
