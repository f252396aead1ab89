/**
 * What every TTS worker of a process would otherwise load for itself: loaded once, on the main thread,
 * the first time a worker asks, and handed to each worker without a copy — the compiled Flite module
 * (a `WebAssembly.Module` posted to a worker shares its code and its 21 MB of voice data) with the 17 MB
 * snapshot of its memory each call starts from, and eSpeak's 24 MB data package (SharedArrayBuffers
 * that every worker reads from; the package is read from disk a file at a time, see espeak-package.ts).
 */
import { openEspeakPackage, type EspeakPackage } from './espeak-package.js';
import { compileFlite, type FliteModule } from './flite.js';

/** The assets by name, and what each is. */
export interface SharedAssetTypes {
  'flite-module': FliteModule;
  'espeak-data': EspeakPackage;
}
export type SharedAssetName = keyof SharedAssetTypes;
export type SharedAsset = SharedAssetTypes[SharedAssetName];

/** How each asset is loaded (tests pass their own). */
export type SharedAssetLoaders = { [K in SharedAssetName]: () => Promise<SharedAssetTypes[K]> };

export const DEFAULT_ASSET_LOADERS: SharedAssetLoaders = { 'flite-module': () => compileFlite(), 'espeak-data': () => openEspeakPackage() };

/**
 * Loads each asset once (a failed load is tried again by the next caller). `collectGarbage` runs after
 * each load: compiling Flite leaves the 21 MB file it read as garbage on this thread, which a server's
 * main thread might otherwise hold for minutes.
 */
export function createSharedAssets(
  loaders: SharedAssetLoaders = DEFAULT_ASSET_LOADERS,
  collectGarbage?: () => void,
): (name: SharedAssetName) => Promise<SharedAsset> {
  const loaded = new Map<SharedAssetName, Promise<SharedAsset>>();
  return (name) => {
    let p = loaded.get(name);
    if (!p) {
      p = loaders[name]();
      loaded.set(name, p);
      p.then(
        () => collectGarbage?.(),
        () => loaded.delete(name),
      );
    }
    return p;
  };
}
