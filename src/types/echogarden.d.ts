// Ambient types of the Echogarden WebAssembly packages, which ship JavaScript only. The modules are
// Emscripten factories; their callers narrow the result to the functions they use.
declare module '@echogarden/speex-resampler-wasm' {
  const factory: (moduleArg?: Record<string, unknown>) => Promise<unknown>;
  export default factory;
}

declare module '@echogarden/espeak-ng-emscripten' {
  const factory: (moduleArg?: Record<string, unknown>) => Promise<unknown>;
  export default factory;
}
