// A Node warning in a test is a bug (deprecated API, leaked listener, experimental noise): fail on it.
process.on('warning', (warning) => {
  throw warning;
});
