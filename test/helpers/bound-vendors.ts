/**
 * Vendor adapters bound to strict loopback fakes for one test file: `bind(vendor)` starts a fake and an
 * adapter pointed at it (the vendor's own model unless `models` names another), and every fake started
 * closes after each test.
 */
import { afterEach } from 'vitest';
import { VENDOR_FACTORIES } from '../../src/server/engines/stt/registry.js';
import type { AdapterSettings } from '../../src/server/engines/stt/settings.js';
import { startFakeVendor, type FakeVendor, type Vendor } from './fake-stt-vendors.js';

/** Registers the clean-up and returns `fake` (a fake alone) and `bind` (call once, at the top of a test file). */
export function boundVendors(models: Partial<Record<Vendor, string>> = {}) {
  const fakes: FakeVendor[] = [];
  afterEach(async () => {
    await Promise.all(fakes.splice(0).map((f) => f.close()));
  });
  const fake = async (vendor: Vendor): Promise<FakeVendor> => {
    const started = await startFakeVendor(vendor);
    fakes.push(started);
    return started;
  };
  const bind = async (vendor: Vendor, extra: Partial<AdapterSettings> = {}) => {
    const started = await fake(vendor);
    const adapter = VENDOR_FACTORIES[vendor]({ baseUrl: started.url, model: models[vendor] ?? null, language: 'en', pollIntervalMs: 10, apiKeyEnv: 'K', apiKey: () => started.key, ...extra });
    return { fake: started, adapter };
  };
  return { fake, bind };
}
