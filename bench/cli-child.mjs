// Runs dist/cli.js unchanged (argv as given to this script) in a child of the benchmark, and stops it
// with SIGTERM when the benchmark's IPC channel closes, so that it cannot outlive a killed benchmark.
process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
await import('../dist/cli.js');
