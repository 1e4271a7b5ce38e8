// What the bundle gives chalk for its colour detection (`#supports-color`, src/build/bundle.mjs).
// rsi decides colour itself (src/main.ts) and always builds chalk with a level (src/io/colors.ts),
// so chalk's own detection is never used; loading it pulled node:tty, and with it node:net, into
// every start that prints help. chalk reads only `stdout` and `stderr` of the default export;
// test/unit/http2-on-demand.test.ts reads chalk's source to keep it so.
const supportsColor = { stdout: false, stderr: false };
export default supportsColor;
