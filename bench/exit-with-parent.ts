// Preloaded (`node --import`) into the api the gateway benchmark spawns: the bench holds the child's stdin pipe, so
// when the bench process goes away however it ended (SIGKILL included) the pipe closes and the child gets SIGTERM,
// the api's ordinary shutdown. No api outlives its benchmark.
process.stdin.once('close', () => process.kill(process.pid, 'SIGTERM'));
process.stdin.resume();
